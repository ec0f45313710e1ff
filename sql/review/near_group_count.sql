-- The groups that have a near-duplicate member (the covering index on dup_kind, dup_group).
SELECT count(DISTINCT dup_group) FROM {pages} WHERE dup_kind = 'near';
