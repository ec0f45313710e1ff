-- After a batched full run installed its triggers: the rows of {pages} this run did not see
-- (added after its snapshot, before the triggers), read outside the write lock; phase 5
-- queues them in a short transaction (sql/queue_unseen.sql does both at once for a write
-- small enough for one transaction).
DROP TABLE IF EXISTS temp.run_unseen;
CREATE TEMP TABLE run_unseen AS
SELECT {rowid} AS id FROM {pages}
WHERE {rowid} NOT IN (SELECT id FROM temp.run_prepared);
