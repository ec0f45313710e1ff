-- Replace webdedup's stored state by this run's (inside the write-back transaction).
-- `INSERT INTO main.x SELECT * FROM temp.y` between tables of the same columns and indexes
-- (sql/write_prepare_full.sql) is copied as it is by SQLite: keep these statements in that form.
DELETE FROM main._webdedup_prepared;
INSERT INTO main._webdedup_prepared SELECT * FROM temp.run_prepared;
DELETE FROM main._webdedup_sketches;
INSERT INTO main._webdedup_sketches SELECT * FROM temp.run_sketches;
DELETE FROM main._webdedup_bands;
INSERT INTO main._webdedup_bands SELECT * FROM temp.run_bands;  -- same primary key: no dupes
DELETE FROM main._webdedup_edges;
INSERT INTO main._webdedup_edges SELECT * FROM temp.run_edges;
DELETE FROM main._webdedup_nodes;
INSERT INTO main._webdedup_nodes (url_key, id, component, length)
SELECT url_key, id, component, length FROM temp.run_lev_nodes ORDER BY url_key, id;
DELETE FROM main._webdedup_verified;
INSERT INTO main._webdedup_verified SELECT * FROM temp.run_verified;
