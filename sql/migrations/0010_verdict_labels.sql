-- Schema version 10: verdicts as labels (issue 34). A third kind, 'duplicate' (the reviewer
-- accepts page_a as a duplicate of page_b: the run's decision stands), and the pair's score
-- when the verdict was given (the run's verified similarity of the two pages, NULL when the
-- review had none), which `webdedup calibrate` holds against each threshold. SQLite cannot
-- change a CHECK constraint: the table is rebuilt, its rows, indexes and triggers kept.
CREATE TABLE _webdedup_verdicts_new (
    id         INTEGER PRIMARY KEY,
    kind       TEXT NOT NULL CHECK (kind IN ('not_duplicate', 'canonical', 'duplicate')),
    page_a     INTEGER NOT NULL,
    page_b     INTEGER,
    created_at TEXT NOT NULL,      -- UTC, ISO 8601
    note       TEXT,
    score      REAL                -- the pair's verified similarity when the verdict was given
);
INSERT INTO _webdedup_verdicts_new (id, kind, page_a, page_b, created_at, note)
SELECT id, kind, page_a, page_b, created_at, note FROM _webdedup_verdicts;
DROP TABLE _webdedup_verdicts;
ALTER TABLE _webdedup_verdicts_new RENAME TO _webdedup_verdicts;
CREATE INDEX IF NOT EXISTS _webdedup_verdicts_a ON _webdedup_verdicts(page_a);
CREATE INDEX IF NOT EXISTS _webdedup_verdicts_b ON _webdedup_verdicts(page_b);

-- As in 0005: a verdict given or withdrawn queues its pages for the next incremental run.
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
