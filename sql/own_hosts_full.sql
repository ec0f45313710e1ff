-- Own content (webdedup.pipeline.own_content), a full run: for every host with a near node,
-- :min_pages pages (distinct URLs) or more and two texts or more, one page of each of its
-- distinct texts and how many of its URLs carry it, host by host.
WITH texts AS (
    SELECT host, content_hash, url_key, id FROM temp.run_prepared
    WHERE ignored IS NULL AND host IS NOT NULL
),
hosts AS (
    SELECT host FROM texts
    WHERE host IN (SELECT p.host FROM temp.run_near_nodes AS n
                   JOIN temp.run_prepared AS p ON p.id = n.id)
    GROUP BY host
    HAVING count(DISTINCT url_key) >= :min_pages AND count(DISTINCT content_hash) >= 2
)
SELECT host, content_hash, min(id), count(DISTINCT url_key) FROM texts
WHERE host IN (SELECT host FROM hosts)
GROUP BY host, content_hash
ORDER BY host, content_hash;
