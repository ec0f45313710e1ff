-- Schema version 14: the lookups of _webdedup_groups by group and by kind in two tables keyed
-- by them, instead of two indexes on it (issue 33). A large run writes the groups in batches
-- (phase 5), in id order; the indexes' entries of those rows (a multi-page group's number is
-- its first member's id) landed on random leaves, so each batch rewrote nearly the whole of
-- both indexes: 404 MiB written for the 45 MiB of the groups state of a million pages. Like
-- _webdedup_url_keys (schema 8), these tables are filled in their own key order instead.
-- _webdedup_group_members: each page of a group (dup_group not null), by group;
-- _webdedup_group_kinds: each page with a kind (not the canonicals, not the ignored pages,
-- which have no group), by kind and group. Both change with _webdedup_groups, in the same
-- transactions.
DROP INDEX IF EXISTS _webdedup_groups_kind;
DROP INDEX IF EXISTS _webdedup_groups_group;
CREATE TABLE IF NOT EXISTS _webdedup_group_members (
    dup_group    INTEGER NOT NULL,
    is_canonical INTEGER NOT NULL,
    id           INTEGER NOT NULL,
    PRIMARY KEY (dup_group, is_canonical, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS _webdedup_group_kinds (
    dup_kind  TEXT NOT NULL,
    dup_group INTEGER NOT NULL,
    id        INTEGER NOT NULL,
    PRIMARY KEY (dup_kind, dup_group, id)
) WITHOUT ROWID;
INSERT OR IGNORE INTO _webdedup_group_members (dup_group, is_canonical, id)
SELECT dup_group, coalesce(is_canonical, 0), id FROM _webdedup_groups
WHERE dup_group IS NOT NULL
ORDER BY 1, 2, 3;
INSERT OR IGNORE INTO _webdedup_group_kinds (dup_kind, dup_group, id)
SELECT dup_kind, dup_group, id FROM _webdedup_groups
WHERE dup_kind IS NOT NULL AND dup_group IS NOT NULL
ORDER BY 1, 2, 3;
