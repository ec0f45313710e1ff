-- The tables (with their CREATE statements) and the indexes of the main schema: the one pass
-- over SQLite's catalogue that resolves the crawler's table (store/layout.py, Catalogue).
SELECT type, name, sql FROM main.sqlite_schema WHERE type IN ('table', 'index');
