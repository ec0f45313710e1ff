-- webdedup's state tables and their indexes (their bytes: stats/state_bytes.sql).
SELECT name FROM sqlite_schema
WHERE type IN ('table', 'index')
  AND (name LIKE '\_webdedup%' ESCAPE '\' OR name LIKE 'sqlite_autoindex\__webdedup%' ESCAPE '\')
ORDER BY name;
