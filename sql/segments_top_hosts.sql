-- The hosts with the most processed pages (for the message about a host without pages).
SELECT host, count(*) AS n FROM _webdedup_prepared
WHERE host IS NOT NULL AND ignored IS NULL
GROUP BY host ORDER BY n DESC, host LIMIT 5;
