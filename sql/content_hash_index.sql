-- Deduplicator.add_content_hash_column: the index that makes content_hash lookups cheap.
CREATE INDEX IF NOT EXISTS {index} ON {table} (content_hash);
