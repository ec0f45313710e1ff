-- The levenshtein method's order: near-duplicate nodes sorted by canonical URL (the window's
-- nodes: a full run compares them in this order, an incremental one stores them).
SELECT p.id, p.url_key, p.text_len
FROM temp.run_prepared AS p
WHERE p.id IN (SELECT id FROM temp.run_near_nodes)
ORDER BY p.url_key, p.id;
