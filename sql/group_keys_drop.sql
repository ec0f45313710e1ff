-- The rows of _webdedup_group_members and _webdedup_group_kinds (schema 14) of the pages
-- {ids} (a subquery of ids), as their stored _webdedup_groups rows give them: run before those
-- rows change or go (group_keys_add.sql puts the new ones in after).
DELETE FROM main._webdedup_group_members
WHERE (dup_group, is_canonical, id) IN (
    SELECT dup_group, coalesce(is_canonical, 0), id FROM main._webdedup_groups
    WHERE id IN ({ids}) AND dup_group IS NOT NULL);
DELETE FROM main._webdedup_group_kinds
WHERE (dup_kind, dup_group, id) IN (
    SELECT dup_kind, dup_group, id FROM main._webdedup_groups
    WHERE id IN ({ids}) AND dup_kind IS NOT NULL AND dup_group IS NOT NULL);
