-- The members of up to two duplicate groups, with what links them without an edge.
-- {content_hash}: webdedup's hash of p's text (see Source.sql).
SELECT p.{rowid} AS id, p.dup_group, p.canonical_url, {content_hash} AS content_hash
FROM main._webdedup_group_members AS a
JOIN {pages} AS p ON p.{rowid} = a.id AND p.dup_group = a.dup_group  -- a row renumbered by VACUUM carries another group: left out
WHERE a.dup_group IN (:group_a, :group_b)
ORDER BY p.{rowid};
