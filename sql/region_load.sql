-- Load the stored state of the region's unchanged pages next to the freshly prepared changed
-- ones. Deleted pages (queued, no longer in pages) are in the region but get no rows. Run
-- again when the region grows (levenshtein): rows already loaded stay as they are.
INSERT OR IGNORE INTO temp.run_prepared
SELECT * FROM main._webdedup_prepared
WHERE id IN (SELECT id FROM temp.run_region) AND id NOT IN (SELECT id FROM temp.run_changed);
INSERT OR IGNORE INTO temp.run_sketches
SELECT * FROM main._webdedup_sketches
WHERE id IN (SELECT id FROM temp.run_region) AND id NOT IN (SELECT id FROM temp.run_changed);
-- (their band keys are in these sketches: phase 4 reads them from run_sketches)
-- the n_min filter is recomputed from the whole table's host counts (sql/small_hosts_incremental.sql)
UPDATE temp.run_prepared SET ignored = NULL WHERE ignored = 'small_host';
