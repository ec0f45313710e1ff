-- The groups that have a near-duplicate member (_webdedup_groups' (dup_kind, dup_group) index).
SELECT count(DISTINCT dup_group) FROM main._webdedup_groups WHERE dup_kind = 'near';
