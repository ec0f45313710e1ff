-- Members of every group that holds at least one near-duplicate, canonical first, grouped by
-- dup_group (the caller folds consecutive rows into one group). {title}: p's title or NULL.
SELECT p.dup_group      AS dup_group,
       p.dup_group_size AS size,
       p.canonical_id   AS canonical_id,
       p.{rowid}        AS id,
       {title}          AS title
FROM {pages} AS p
WHERE p.dup_group IN (SELECT k.dup_group FROM {pages} AS k WHERE k.dup_kind = 'near')
  AND (:min_size IS NULL OR p.dup_group_size >= :min_size)
ORDER BY p.dup_group, p.is_canonical DESC, p.{rowid};
