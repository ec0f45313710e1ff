-- Phase 5 of a full run, before the write lock: the rows of _webdedup_group_members and
-- _webdedup_group_kinds (schema 14) from the run's groups, each table in its key order (a
-- batched write copies them a key range at a time: appended, not spread over the table).
DROP TABLE IF EXISTS temp.run_group_members;
CREATE TEMP TABLE run_group_members (
    dup_group    INTEGER NOT NULL,
    is_canonical INTEGER NOT NULL,
    id           INTEGER NOT NULL,
    PRIMARY KEY (dup_group, is_canonical, id)
) WITHOUT ROWID;
INSERT INTO temp.run_group_members (dup_group, is_canonical, id)
SELECT dup_group, coalesce(is_canonical, 0), id FROM temp.run_groups
WHERE dup_group IS NOT NULL
ORDER BY 1, 2, 3;
DROP TABLE IF EXISTS temp.run_group_kinds;
CREATE TEMP TABLE run_group_kinds (
    dup_kind  TEXT NOT NULL,
    dup_group INTEGER NOT NULL,
    id        INTEGER NOT NULL,
    PRIMARY KEY (dup_kind, dup_group, id)
) WITHOUT ROWID;
INSERT INTO temp.run_group_kinds (dup_kind, dup_group, id)
SELECT dup_kind, dup_group, id FROM temp.run_groups
WHERE dup_kind IS NOT NULL AND dup_group IS NOT NULL
ORDER BY 1, 2, 3;
