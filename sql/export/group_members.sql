-- The members of up to two duplicate groups, with what links them without an edge.
SELECT {rowid} AS id, dup_group, canonical_url, content_hash
FROM {pages}
WHERE dup_group IN (:group_a, :group_b)
ORDER BY {rowid};
