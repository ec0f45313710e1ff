-- The table of contents of the static review page: the groups review_groups.sql shows (same
-- filters, same order), with the canonical's URL and the kinds its members joined by.
SELECT c.dup_group AS dup_group, c.dup_group_size AS size, c.{url} AS url,
       (SELECT group_concat(DISTINCT k.dup_kind) FROM {pages} AS k
        WHERE k.dup_group = c.dup_group AND k.dup_kind IS NOT NULL) AS kinds
FROM {pages} AS c
WHERE c.is_canonical = 1
  AND c.dup_group_size > 1
  AND (:min_size IS NULL OR c.dup_group_size >= :min_size)
  AND (:kinds IS NULL OR c.dup_group IN (
        SELECT k.dup_group FROM {pages} AS k
        WHERE k.dup_kind IN (SELECT value FROM json_each(:kinds))))
ORDER BY c.dup_group_size DESC, c.dup_group
LIMIT :max_groups;
