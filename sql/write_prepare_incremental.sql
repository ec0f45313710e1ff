-- Phase 5 of an incremental run, before the write lock: which of the region's pages (and
-- deleted pages) need their stored state rewritten, and the stored lookup rows that the write
-- replaces by this run's (run_url_keys, run_content_hashes), in key order.
-- Most of a region is unchanged pages whose prepared row and sketch come back as they were
-- stored (sql/region_load.sql): rewriting them would dirty a random leaf of each state table
-- a page. Only the pages whose rows differ (new, changed, deleted, or a flag such as
-- `ignored` moved) are rewritten; EXCEPT compares whole rows, NULLs as equal.
DROP TABLE IF EXISTS temp.run_restate;
CREATE TEMP TABLE run_restate (id INTEGER PRIMARY KEY);
WITH stored_prepared AS (
    SELECT * FROM main._webdedup_prepared WHERE id IN (SELECT id FROM temp.run_region)
), stored_sketches AS (
    SELECT * FROM main._webdedup_sketches WHERE id IN (SELECT id FROM temp.run_region)
)
INSERT INTO temp.run_restate (id)  -- rows in one but not the other, either way
SELECT id FROM (SELECT * FROM temp.run_prepared EXCEPT SELECT * FROM stored_prepared)
UNION SELECT id FROM (SELECT * FROM stored_prepared EXCEPT SELECT * FROM temp.run_prepared)
UNION SELECT id FROM (SELECT * FROM temp.run_sketches EXCEPT SELECT * FROM stored_sketches)
UNION SELECT id FROM (SELECT * FROM stored_sketches EXCEPT SELECT * FROM temp.run_sketches);
-- this run's lookup rows of the other pages are stored already
DELETE FROM temp.run_url_keys WHERE id NOT IN (SELECT id FROM temp.run_restate);
DELETE FROM temp.run_content_hashes WHERE id NOT IN (SELECT id FROM temp.run_restate);
DELETE FROM temp.run_hosts WHERE id NOT IN (SELECT id FROM temp.run_restate);
DROP TABLE IF EXISTS temp.run_old_url_keys;
CREATE TEMP TABLE run_old_url_keys (url_key TEXT NOT NULL, id INTEGER NOT NULL,
                                    PRIMARY KEY (url_key, id)) WITHOUT ROWID;
INSERT INTO temp.run_old_url_keys
SELECT url_key, id FROM main._webdedup_prepared
WHERE id IN (SELECT id FROM temp.run_restate) ORDER BY url_key, id;
DROP TABLE IF EXISTS temp.run_old_content_hashes;
CREATE TEMP TABLE run_old_content_hashes (content_hash TEXT NOT NULL, id INTEGER NOT NULL,
                                          PRIMARY KEY (content_hash, id)) WITHOUT ROWID;
INSERT INTO temp.run_old_content_hashes
SELECT content_hash, id FROM main._webdedup_prepared
WHERE id IN (SELECT id FROM temp.run_restate) AND content_hash IS NOT NULL
ORDER BY content_hash, id;
DROP TABLE IF EXISTS temp.run_old_hosts;
CREATE TEMP TABLE run_old_hosts (host TEXT NOT NULL, id INTEGER NOT NULL,
                                 PRIMARY KEY (host, id)) WITHOUT ROWID;
INSERT INTO temp.run_old_hosts
SELECT host, id FROM main._webdedup_prepared
WHERE id IN (SELECT id FROM temp.run_restate) AND host IS NOT NULL
ORDER BY host, id;
