-- Own content's texts as the run's readers stage them (webdedup.pipeline.staging.InOrder):
-- each page id with its place in the order the jobs take them (temp.run_own_texts' key:
-- host, then content hash), in id order, the order the readers read them in. The hosts of
-- more than :keep texts are left out (their texts are read in the run's own process).
-- Sorted by SQLite, whose sorter spills to a temporary file: at ten million pages an array
-- of every id and its place, sorted in Python, took about 400 MB at once.
SELECT id, position
FROM (SELECT t.id AS id,
             row_number() OVER (ORDER BY t.host, t.content_hash) - 1 AS position
      FROM temp.run_own_texts AS t
      WHERE t.host IN (SELECT host FROM temp.run_own_texts GROUP BY host
                       HAVING count(*) <= :keep))
ORDER BY id;
