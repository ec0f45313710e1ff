-- Reviewer verdicts (schema version 5), written by `webdedup review` and honoured by every
-- later run, full or incremental.
--   kind 'not_duplicate': page_a is not a duplicate of page_b (a cannot-link pair: the two
--                         are never in one near-duplicate group again);
--   kind 'canonical':     page_a is its group's canonical (page_b: the canonical it replaced)
--                         for as long as it is in the group and not deleted.
-- A verdict on a page that is gone is ignored. Deleting a row withdraws the verdict.
CREATE TABLE IF NOT EXISTS _webdedup_verdicts (
    id         INTEGER PRIMARY KEY,
    kind       TEXT NOT NULL CHECK (kind IN ('not_duplicate', 'canonical')),
    page_a     INTEGER NOT NULL,
    page_b     INTEGER,
    created_at TEXT NOT NULL,      -- UTC, ISO 8601
    note       TEXT
);
CREATE INDEX IF NOT EXISTS _webdedup_verdicts_a ON _webdedup_verdicts(page_a);
CREATE INDEX IF NOT EXISTS _webdedup_verdicts_b ON _webdedup_verdicts(page_b);

-- A verdict given or withdrawn queues its pages for the next incremental run, which re-opens
-- the region around them (however the row was written: the review app, sqlite3, Datasette).
DROP TRIGGER IF EXISTS _webdedup_verdicts_insert;
CREATE TRIGGER _webdedup_verdicts_insert AFTER INSERT ON _webdedup_verdicts
BEGIN
    INSERT INTO _webdedup_changes (id, op) VALUES (NEW.page_a, 'verdict');
    INSERT INTO _webdedup_changes (id, op) SELECT NEW.page_b, 'verdict' WHERE NEW.page_b IS NOT NULL;
END;
DROP TRIGGER IF EXISTS _webdedup_verdicts_delete;
CREATE TRIGGER _webdedup_verdicts_delete AFTER DELETE ON _webdedup_verdicts
BEGIN
    INSERT INTO _webdedup_changes (id, op) VALUES (OLD.page_a, 'verdict');
    INSERT INTO _webdedup_changes (id, op) SELECT OLD.page_b, 'verdict' WHERE OLD.page_b IS NOT NULL;
END;
