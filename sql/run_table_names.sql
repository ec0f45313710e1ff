-- The run's TEMP work tables (all named run_...), to drop from a connection kept open.
SELECT name FROM temp.sqlite_schema WHERE type = 'table' AND name LIKE 'run\_%' ESCAPE '\';
