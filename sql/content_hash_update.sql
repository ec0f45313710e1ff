-- Deduplicator.add_content_hash_column: one page's content_hash (SHA-1 of its normalized text,
-- the value `webdedup db` writes; NULL for an empty text). {table} and {rowid} are quoted.
UPDATE {table} SET content_hash = :hash WHERE {rowid} = :id;
