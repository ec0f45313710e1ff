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
-- The groups rows that change only: most of a region's pages keep their group, and each row
-- written costs its two indexes too (0.7 s under the lock for a region of 36,000 pages at
-- three million).
DELETE FROM main._webdedup_groups
WHERE id IN (SELECT id FROM temp.run_region) AND id NOT IN (SELECT id FROM temp.run_groups);
INSERT OR REPLACE INTO main._webdedup_groups
SELECT g.* FROM temp.run_groups AS g
LEFT JOIN main._webdedup_groups AS m ON m.id = g.id
WHERE m.id IS NULL OR m.dup_group IS NOT g.dup_group OR m.dup_kind IS NOT g.dup_kind
   OR m.is_canonical IS NOT g.is_canonical OR m.dup_score IS NOT g.dup_score;
