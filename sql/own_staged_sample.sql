-- How many texts own content stages (those of hosts of at most :keep texts: see
-- own_staged_order.sql), and a few of them drawn at random (ids comma-separated) to size
-- the staging's buckets by.
SELECT count(*),
       (SELECT group_concat(id) FROM (SELECT id FROM temp.run_own_texts
                                      ORDER BY random() LIMIT :sample))
FROM temp.run_own_texts
WHERE host IN (SELECT host FROM temp.run_own_texts GROUP BY host HAVING count(*) <= :keep);
