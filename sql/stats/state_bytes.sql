-- Bytes on disk of webdedup's state tables and their indexes (needs the dbstat table).
SELECT sum(pgsize) FROM dbstat
WHERE name LIKE '\_webdedup%' ESCAPE '\'
   OR name LIKE 'sqlite_autoindex\__webdedup%' ESCAPE '\';
