-- After a full run: queue the rows this run did not see (inserted after its snapshot), so
-- the next run picks them up even if the triggers did not exist yet when they came.
INSERT INTO _webdedup_changes (id, op)
SELECT {rowid}, 'insert' FROM {pages}
WHERE {rowid} NOT IN (SELECT id FROM temp.run_prepared);
