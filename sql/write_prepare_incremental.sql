-- Phase 5 of an incremental run, before the write lock: the stored lookup rows of the region's
-- pages (and of deleted pages), which the write replaces by this run's (run_url_keys,
-- run_content_hashes), in key order.
DROP TABLE IF EXISTS temp.run_old_url_keys;
CREATE TEMP TABLE run_old_url_keys (url_key TEXT NOT NULL, id INTEGER NOT NULL,
                                    PRIMARY KEY (url_key, id)) WITHOUT ROWID;
INSERT INTO temp.run_old_url_keys
SELECT url_key, id FROM main._webdedup_prepared
WHERE id IN (SELECT id FROM temp.run_region) ORDER BY url_key, id;
DROP TABLE IF EXISTS temp.run_old_content_hashes;
CREATE TEMP TABLE run_old_content_hashes (content_hash TEXT NOT NULL, id INTEGER NOT NULL,
                                          PRIMARY KEY (content_hash, id)) WITHOUT ROWID;
INSERT INTO temp.run_old_content_hashes
SELECT content_hash, id FROM main._webdedup_prepared
WHERE id IN (SELECT id FROM temp.run_region) AND content_hash IS NOT NULL
ORDER BY content_hash, id;
