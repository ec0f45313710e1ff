-- The region's window nodes as the last run stored them (keys as UTF-8 bytes, compared as
-- SQLite's ORDER BY compares them).
SELECT CAST(url_key AS BLOB), id
FROM main._webdedup_nodes
WHERE id IN (SELECT id FROM temp.run_region);
