-- Work tables for growing the region of an incremental run.
DROP TABLE IF EXISTS temp.run_changed;
CREATE TEMP TABLE run_changed (id INTEGER PRIMARY KEY);   -- queued ids (existing or deleted)
DROP TABLE IF EXISTS temp.run_region;
CREATE TEMP TABLE run_region (id INTEGER PRIMARY KEY);
DROP TABLE IF EXISTS temp.run_frontier;
CREATE TEMP TABLE run_frontier (id INTEGER PRIMARY KEY);
DROP TABLE IF EXISTS temp.run_frontier_keys;
CREATE TEMP TABLE run_frontier_keys (url_key TEXT, content_hash TEXT);
DROP TABLE IF EXISTS temp.run_next;
CREATE TEMP TABLE run_next (id INTEGER PRIMARY KEY);
