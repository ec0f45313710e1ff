-- Schema version 11: each annotated page's group, kind and canonical flag, beside the pages
-- table (issue 33). The counts, group lists and review read them here: an index on `pages`
-- itself can only be built by reading every row of it (texts included), which held the
-- write lock for seconds at a million pages. Replaced by a full run, by an incremental run's
-- region, with the annotations in the same transactions. A database annotated by an older
-- webdedup gets its rows from `pages` when it is upgraded (webdedup.store.migrations).
CREATE TABLE IF NOT EXISTS _webdedup_groups (
    id           INTEGER PRIMARY KEY,  -- the page's rowid in the annotated table
    dup_group    INTEGER,
    dup_kind     TEXT,
    is_canonical INTEGER
);
CREATE INDEX IF NOT EXISTS _webdedup_groups_kind ON _webdedup_groups(dup_kind, dup_group);
CREATE INDEX IF NOT EXISTS _webdedup_groups_group ON _webdedup_groups(dup_group, is_canonical);
