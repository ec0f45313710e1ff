-- Replace the stored prepared rows, sketches and LSH band rows of the region (and of deleted
-- pages) by this run's: the bulk of its state (a batched write does it a batch at a time).
DELETE FROM main._webdedup_prepared WHERE id IN (SELECT id FROM temp.run_region);
INSERT INTO main._webdedup_prepared SELECT * FROM temp.run_prepared;
DELETE FROM main._webdedup_sketches WHERE id IN (SELECT id FROM temp.run_region);
INSERT INTO main._webdedup_sketches SELECT * FROM temp.run_sketches;
DELETE FROM main._webdedup_bands
WHERE (band_key, id) IN (SELECT band_key, id FROM temp.run_old_bands);
INSERT OR IGNORE INTO main._webdedup_bands (band_key, id)
SELECT band_key, id FROM temp.run_bands ORDER BY band_key, id;
