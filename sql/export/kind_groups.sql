-- The members of the groups of one kind (:kind), canonical first, group by group: the JSON
-- report folds consecutive rows into one group. {groups} is sql/group_kinds.sql (the one
-- definition of a group and its kind, see webdedup/store/counts.py); {title}: p's title or
-- NULL. :min_size (NULL = off) keeps groups of at least that many pages. The members are
-- found by _webdedup_groups' index on dup_group, each page then read by its rowid.
SELECT g.dup_group      AS dup_group,
       g.size           AS size,
       p.{rowid}        AS id,
       p.is_canonical   AS is_canonical,
       {content_hash}   AS content_hash,
       p.canonical_url  AS canonical_url,
       {title}          AS title
FROM {groups} AS g
JOIN main._webdedup_groups AS a ON a.dup_group = g.dup_group
JOIN {pages} AS p ON p.{rowid} = a.id AND p.dup_group = a.dup_group  -- a row renumbered by VACUUM carries another group: left out
WHERE g.kind = :kind
  AND (:min_size IS NULL OR g.size >= :min_size)
ORDER BY g.dup_group, p.is_canonical DESC, p.{rowid};
