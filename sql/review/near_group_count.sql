-- The groups that have a near-duplicate member (_webdedup_group_kinds, keyed by kind, group).
SELECT count(DISTINCT dup_group) FROM main._webdedup_group_kinds WHERE dup_kind = 'near';
