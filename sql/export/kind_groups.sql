-- The members of the groups of one kind (:kind), canonical first, group by group: the JSON
-- report folds consecutive rows into one group. {groups} is sql/group_kinds.sql (the one
-- definition of a group and its kind, see webdedup/store/counts.py); {title}: p's title or
-- NULL. :min_size (NULL = off) keeps groups of at least that many pages. CROSS JOIN keeps
-- the pages the outer loop (one pass over them, each looking its group up), never a pass over
-- the pages for each group.
SELECT g.dup_group      AS dup_group,
       g.size           AS size,
       p.{rowid}        AS id,
       p.is_canonical   AS is_canonical,
       {content_hash}   AS content_hash,
       p.canonical_url  AS canonical_url,
       {title}          AS title
FROM {pages} AS p
CROSS JOIN {groups} AS g ON g.dup_group = p.dup_group
WHERE g.kind = :kind
  AND (:min_size IS NULL OR g.size >= :min_size)
ORDER BY g.dup_group, p.is_canonical DESC, p.{rowid};
