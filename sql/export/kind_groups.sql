-- The members of the groups of one kind, canonical first, group by group
-- (temp.export_kind_rows: export/kind_rows.sql): the JSON report folds consecutive rows into
-- one group.
SELECT dup_group, size, id, is_canonical, content_hash, canonical_url, title
FROM temp.export_kind_rows
ORDER BY dup_group, is_canonical DESC, id;
