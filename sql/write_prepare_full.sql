-- Phase 5 of a full run, before the write lock: the indexes that main's state tables have,
-- built here in one sorted pass each. With the same columns and indexes on both sides,
-- `INSERT INTO main.x SELECT * FROM temp.y` copies rows and index entries as they are
-- (SQLite's transfer optimization) instead of inserting index entries one at a time.
CREATE INDEX IF NOT EXISTS temp.run_edges_b ON run_edges(b);
