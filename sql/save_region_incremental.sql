-- Replace the stored prepared rows, their lookup rows and the sketches of the region's pages
-- that differ (temp.run_restate: new, changed and deleted pages...) by this run's: the bulk of
-- its state (a batched write does it a batch at a time; the old lookup rows are in
-- temp.run_old_*, sql/write_prepare_incremental.sql).
DELETE FROM main._webdedup_url_keys
WHERE (url_key, id) IN (SELECT url_key, id FROM temp.run_old_url_keys);
INSERT OR IGNORE INTO main._webdedup_url_keys SELECT * FROM temp.run_url_keys;
DELETE FROM main._webdedup_content_hashes
WHERE (content_hash, id) IN (SELECT content_hash, id FROM temp.run_old_content_hashes);
INSERT OR IGNORE INTO main._webdedup_content_hashes SELECT * FROM temp.run_content_hashes;
DELETE FROM main._webdedup_hosts
WHERE (host, id) IN (SELECT host, id FROM temp.run_old_hosts);
INSERT OR IGNORE INTO main._webdedup_hosts SELECT * FROM temp.run_hosts;
DELETE FROM main._webdedup_prepared WHERE id IN (SELECT id FROM temp.run_restate);
INSERT INTO main._webdedup_prepared
SELECT * FROM temp.run_prepared WHERE id IN (SELECT id FROM temp.run_restate);
DELETE FROM main._webdedup_sketches WHERE id IN (SELECT id FROM temp.run_restate);
INSERT INTO main._webdedup_sketches
SELECT * FROM temp.run_sketches WHERE id IN (SELECT id FROM temp.run_restate);
