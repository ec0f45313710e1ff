-- The crawler's tables and views (not SQLite's nor webdedup's), for an error message.
SELECT name FROM sqlite_schema
WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\_%' ESCAPE '\'
  AND name NOT LIKE '\_webdedup%' ESCAPE '\'
ORDER BY name;
