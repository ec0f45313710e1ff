-- Incremental runs (schema version 2).

-- The queue of changed page ids, filled by triggers on `pages` (see sql/triggers.sql). A row
-- is added on every change (seq grows), so a change made while a run goes on is never lost:
-- a run removes only the rows up to the seq it read.
CREATE TABLE IF NOT EXISTS _webdedup_changes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id  INTEGER NOT NULL,
    op  TEXT NOT NULL                -- insert | update | delete
);
CREATE INDEX IF NOT EXISTS _webdedup_changes_id ON _webdedup_changes(id);

-- Every verified candidate pair, by the content hashes of its two texts (the similarity of
-- two texts depends on nothing else), so a later run never verifies the same texts again.
CREATE TABLE IF NOT EXISTS _webdedup_verified (
    hash_a TEXT NOT NULL,            -- hash_a < hash_b
    hash_b TEXT NOT NULL,
    score  REAL NOT NULL,
    PRIMARY KEY (hash_a, hash_b)
) WITHOUT ROWID;

-- Region growth and write-back look edges up from both ends.
CREATE INDEX IF NOT EXISTS _webdedup_edges_b ON _webdedup_edges(b);
