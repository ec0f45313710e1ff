-- Replace the stored state of the region (and of deleted pages) by this run's (its prepared
-- rows and sketches: save_region_incremental.sql, or a batched write's batches).
DELETE FROM main._webdedup_edges
WHERE a IN (SELECT id FROM temp.run_region) OR b IN (SELECT id FROM temp.run_region);
INSERT OR REPLACE INTO main._webdedup_edges SELECT * FROM temp.run_edges;
DELETE FROM main._webdedup_nodes WHERE id IN (SELECT id FROM temp.run_region);
INSERT INTO main._webdedup_nodes (url_key, id, component, length)
SELECT url_key, id, component, length FROM temp.run_lev_nodes ORDER BY url_key, id;
INSERT OR IGNORE INTO main._webdedup_verified SELECT * FROM temp.run_verified;
DELETE FROM main._webdedup_thin WHERE id IN (SELECT id FROM temp.run_region);
INSERT INTO main._webdedup_thin SELECT * FROM temp.run_thin;
-- (the groups rows that change: phase5_write_back._groups_rows, at once or in the batches
-- of a batched write)
