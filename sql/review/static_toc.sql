-- The table of contents of the static review page: the groups review_groups.sql shows (same
-- filters, same order), with the canonical's URL and the kinds its members joined by.
-- {groups} is sql/group_kinds.sql: the one definition of a group (webdedup/store/counts.py).
SELECT g.dup_group AS dup_group, g.size AS size, c.{url} AS url,
       (SELECT group_concat(DISTINCT k.dup_kind)
        FROM main._webdedup_group_members AS m
        JOIN main._webdedup_groups AS k ON k.id = m.id
        WHERE m.dup_group = g.dup_group AND k.dup_kind IS NOT NULL) AS kinds
FROM {groups} AS g
JOIN main._webdedup_group_members AS cg ON cg.dup_group = g.dup_group AND cg.is_canonical = 1
JOIN {pages} AS c ON c.{rowid} = cg.id AND c.dup_group = cg.dup_group
WHERE (:min_size IS NULL OR g.size >= :min_size)
  AND (:kinds IS NULL OR g.dup_group IN (
        SELECT k.dup_group FROM main._webdedup_group_kinds AS k
        WHERE k.dup_kind IN (SELECT value FROM json_each(:kinds))))
ORDER BY g.size DESC, g.dup_group
LIMIT :max_groups;
