-- Own content (webdedup.pipeline.own_content), an incremental run: for every host with a near
-- node in the region, :min_pages pages (distinct URLs) or more and two texts or more, one page
-- of each of its distinct texts and how many of its URLs carry it, host by host. A host's
-- pages are all its processed pages as they are now: the region's prepared rows and the
-- stored rows of its pages outside the region that are still there (a host with a changed
-- page is wholly in the region: region_hosts.sql). {host_pages}: the stored pages by host
-- (webdedup.store.state.host_pages).
WITH near_hosts AS (
    SELECT DISTINCT p.host FROM temp.run_near_nodes AS n
    JOIN temp.run_prepared AS p ON p.id = n.id
    WHERE p.host IS NOT NULL
),
texts AS (
    SELECT host, content_hash, url_key, id FROM temp.run_prepared
    WHERE ignored IS NULL AND host IS NOT NULL
    UNION ALL
    SELECT s.host, s.content_hash, s.url_key, s.id
    FROM near_hosts AS nh
    CROSS JOIN {host_pages} AS h
    CROSS JOIN main._webdedup_prepared AS s
    WHERE h.host = nh.host AND s.id = h.id AND s.ignored IS NULL
      AND s.id NOT IN (SELECT id FROM temp.run_prepared)
      AND s.id NOT IN (SELECT id FROM temp.run_changed)
),
hosts AS (
    SELECT host FROM texts
    WHERE host IN (SELECT host FROM near_hosts)
    GROUP BY host
    HAVING count(DISTINCT url_key) >= :min_pages AND count(DISTINCT content_hash) >= 2
)
SELECT host, content_hash, min(id), count(DISTINCT url_key) FROM texts
WHERE host IN (SELECT host FROM hosts)
GROUP BY host, content_hash
ORDER BY host, content_hash;
