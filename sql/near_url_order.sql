-- The levenshtein method's order: near-duplicate nodes sorted by canonical URL.
SELECT p.id
FROM temp.run_prepared AS p
WHERE p.id IN (SELECT id FROM temp.run_near_nodes)
ORDER BY p.url_key, p.id;
