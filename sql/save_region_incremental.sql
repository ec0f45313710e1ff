-- Replace the stored prepared rows and sketches of the region (and of deleted pages) by this
-- run's: the bulk of its state (a batched write does it a batch at a time).
DELETE FROM main._webdedup_prepared WHERE id IN (SELECT id FROM temp.run_region);
INSERT INTO main._webdedup_prepared SELECT * FROM temp.run_prepared;
DELETE FROM main._webdedup_sketches WHERE id IN (SELECT id FROM temp.run_region);
INSERT INTO main._webdedup_sketches SELECT * FROM temp.run_sketches;
