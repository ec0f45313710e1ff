-- The state's lookup tables (main._webdedup_url_keys, _content_hashes, _hosts) as this
-- run leaves them for its prepared pages, in key order: phase 5 copies them in that order,
-- and phases 2 and 3 find the keys and texts that several pages share by reading them in
-- that order (where a GROUP BY over the prepared rows sorted every key again). Made at the
-- start of phase 2, every time it runs (a region that grows prepares more pages), and by
-- phase 5 when the run had no phase 2 (results loaded from 'webdedup daft').
DROP TABLE IF EXISTS temp.run_url_keys;
CREATE TEMP TABLE run_url_keys (url_key TEXT NOT NULL, id INTEGER NOT NULL,
                                PRIMARY KEY (url_key, id)) WITHOUT ROWID;
INSERT INTO temp.run_url_keys
SELECT url_key, id FROM temp.run_prepared ORDER BY url_key, id;
DROP TABLE IF EXISTS temp.run_content_hashes;
CREATE TEMP TABLE run_content_hashes (content_hash TEXT NOT NULL, id INTEGER NOT NULL,
                                      PRIMARY KEY (content_hash, id)) WITHOUT ROWID;
INSERT INTO temp.run_content_hashes
SELECT content_hash, id FROM temp.run_prepared WHERE content_hash IS NOT NULL
ORDER BY content_hash, id;
DROP TABLE IF EXISTS temp.run_hosts;
CREATE TEMP TABLE run_hosts (host TEXT NOT NULL, id INTEGER NOT NULL,
                             PRIMARY KEY (host, id)) WITHOUT ROWID;
INSERT INTO temp.run_hosts
SELECT host, id FROM temp.run_prepared WHERE host IS NOT NULL ORDER BY host, id;
