-- Bytes on disk of one of webdedup's state tables or indexes, :name (needs the dbstat table).
-- One object at a time, by name: dbstat walks only the b-tree a `name =` constraint names
-- (a LIKE over all names walked every page of the file, the crawler's texts included: 6.7 s
-- of `stats` at a million pages), and `aggregate` sums it in that walk.
SELECT pgsize FROM dbstat WHERE name = :name AND aggregate = TRUE;
