-- The rows of _webdedup_group_members and _webdedup_group_kinds (schema 14) of the pages
-- {ids} (a subquery of ids), from their _webdedup_groups rows as they are now (after
-- group_keys_drop.sql took out the ones before).
INSERT OR IGNORE INTO main._webdedup_group_members (dup_group, is_canonical, id)
SELECT dup_group, coalesce(is_canonical, 0), id FROM main._webdedup_groups
WHERE id IN ({ids}) AND dup_group IS NOT NULL
ORDER BY 1, 2, 3;
INSERT OR IGNORE INTO main._webdedup_group_kinds (dup_kind, dup_group, id)
SELECT dup_kind, dup_group, id FROM main._webdedup_groups
WHERE id IN ({ids}) AND dup_kind IS NOT NULL AND dup_group IS NOT NULL
ORDER BY 1, 2, 3;
