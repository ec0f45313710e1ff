-- The hosts with the most duplicate-group members (choices of the host filter;
-- temp.review_places: review/places_build.sql).
SELECT host, count(*) AS pages FROM temp.review_places WHERE host IS NOT NULL
GROUP BY host ORDER BY pages DESC, host LIMIT :limit;
