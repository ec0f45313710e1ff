-- The window nodes outside the region, in window order (the primary key), with what an
-- incremental run needs of them: their exact group and compared length.
SELECT CAST(url_key AS BLOB), id, component, length
FROM main._webdedup_nodes
WHERE id NOT IN (SELECT id FROM temp.run_region)
ORDER BY url_key, id;
