-- The n_min filter in an incremental run: host counts over the whole table, as it is now
-- (stored rows of unchanged pages, fresh rows of changed ones).
UPDATE temp.run_prepared
SET ignored = 'small_host'
WHERE ignored IS NULL
  AND host IN (SELECT host
               FROM (SELECT host FROM main._webdedup_prepared
                     WHERE id NOT IN (SELECT id FROM temp.run_changed)
                     UNION ALL
                     SELECT host FROM temp.run_prepared
                     WHERE id IN (SELECT id FROM temp.run_changed))
               WHERE host IS NOT NULL
               GROUP BY host HAVING count(*) < :n_min);
