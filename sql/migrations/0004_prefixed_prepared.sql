-- upgrade only: skipped on a new database, whose 0001 creates _webdedup_prepared already
-- (a crawler's own table named _prepared must never be touched).
-- Every table of webdedup's state carries the _webdedup_ prefix (schema version 4):
-- _prepared becomes _webdedup_prepared, its indexes follow.
ALTER TABLE _prepared RENAME TO _webdedup_prepared;
DROP INDEX IF EXISTS _prepared_url_key;
DROP INDEX IF EXISTS _prepared_content_hash;
CREATE INDEX IF NOT EXISTS _webdedup_prepared_url_key ON _webdedup_prepared(url_key);
CREATE INDEX IF NOT EXISTS _webdedup_prepared_content_hash ON _webdedup_prepared(content_hash);
