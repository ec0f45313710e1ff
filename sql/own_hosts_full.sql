-- Own content (webdedup.pipeline.own_content), a full run: for every host with a near node,
-- :min_pages pages (distinct URLs) or more and two texts or more, one page of each of its
-- distinct texts and how many of its URLs carry it, host by host. Only the hosts with
-- :min_pages prepared pages or more are looked at (run_hosts, in host order: counted without
-- a sort; most hosts of a large crawl have fewer), their pages found through run_hosts.
WITH candidates AS (
    SELECT host FROM temp.run_hosts GROUP BY host HAVING count(*) >= :min_pages
),
texts AS (
    SELECT k.host, p.content_hash, p.url_key, p.id
    FROM candidates AS c
    JOIN temp.run_hosts AS k ON k.host = c.host
    JOIN temp.run_prepared AS p ON p.id = k.id
    WHERE p.ignored IS NULL
),
hosts AS (
    SELECT host FROM texts AS t
    GROUP BY host
    HAVING count(DISTINCT url_key) >= :min_pages AND count(DISTINCT content_hash) >= 2
       AND EXISTS (SELECT 1 FROM temp.run_hosts AS k
                   JOIN temp.run_near_nodes AS n ON n.id = k.id
                   WHERE k.host = t.host)
)
SELECT host, content_hash, min(id), count(DISTINCT url_key) FROM texts
WHERE host IN (SELECT host FROM hosts)
GROUP BY host, content_hash
ORDER BY host, content_hash;
