-- Replace the stored LSH band rows of the region (and of deleted pages) by this run's.
DELETE FROM main._webdedup_bands
WHERE (band_key, id) IN (SELECT band_key, id FROM temp.run_old_bands);
INSERT OR IGNORE INTO main._webdedup_bands (band_key, id)
SELECT band_key, id FROM temp.run_bands ORDER BY band_key, id;
