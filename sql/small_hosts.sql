-- The n_min filter: pages of hosts with fewer than :n_min pages are left out.
UPDATE temp.run_prepared
SET ignored = 'small_host'
WHERE ignored IS NULL
  AND host IN (SELECT host FROM temp.run_prepared
               WHERE host IS NOT NULL
               GROUP BY host HAVING count(*) < :n_min);
