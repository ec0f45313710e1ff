-- The hosts with the most duplicate-group members (choices of the host filter).
SELECT host, count(*) AS pages FROM temp.review_members WHERE host IS NOT NULL
GROUP BY host ORDER BY pages DESC, host LIMIT :limit;
