-- The n_min filter in an incremental run: the page count of each host of the region as the
-- table is now: its stored pages that did not change, by host ({host_pages}: the stored pages
-- by host, webdedup.store.state.host_pages), and its changed pages as prepared now.
WITH changed AS (
    SELECT host, count(*) AS pages FROM temp.run_prepared
    WHERE host IS NOT NULL AND id IN (SELECT id FROM temp.run_changed)
    GROUP BY host
),
region_hosts AS (
    SELECT DISTINCT host FROM temp.run_prepared WHERE host IS NOT NULL
)
UPDATE temp.run_prepared
SET ignored = 'small_host'
WHERE ignored IS NULL
  AND host IN (SELECT r.host FROM region_hosts AS r
               LEFT JOIN changed AS c ON c.host = r.host
               WHERE coalesce(c.pages, 0)
                     + (SELECT count(*) FROM {host_pages} AS h
                        WHERE h.host = r.host AND h.id NOT IN (SELECT id FROM temp.run_changed))
                     < :n_min);
