-- The region's groups rows that change (main._webdedup_groups): most of a region's pages keep
-- their group, and each row written costs its rows by group and by kind too (before schema
-- 14, two indexes: 0.7 s under the lock for a region of 36,000 pages at three million; at ten
-- million, 0.8 s of a last transaction of 1.37 s). Found here, in the snapshot (only
-- webdedup runs write the groups, one at a time); written by phase5_write_back._groups_rows,
-- at once or, in a batched write, in batches of their own.
-- {stored}: main._webdedup_groups, or, for a state whose write will migrate it first (the
-- table made from the pages' annotations at schema 11, dup_score added at 13), an empty
-- table: every row then (and every region page without a row is gone:
-- pipeline.phase5_write_back._prepare).
DROP TABLE IF EXISTS temp.run_groups_gone;
CREATE TEMP TABLE run_groups_gone (id INTEGER PRIMARY KEY);
INSERT INTO temp.run_groups_gone (id)
SELECT r.id FROM temp.run_region AS r
WHERE r.id NOT IN (SELECT id FROM temp.run_groups)
  AND EXISTS (SELECT 1 FROM {stored} AS m WHERE m.id = r.id);
DROP TABLE IF EXISTS temp.run_groups_changed;
CREATE TEMP TABLE run_groups_changed (
    id INTEGER PRIMARY KEY, dup_group INTEGER, dup_kind TEXT, is_canonical INTEGER,
    dup_score REAL
);
INSERT INTO temp.run_groups_changed (id, dup_group, dup_kind, is_canonical, dup_score)
SELECT g.id, g.dup_group, g.dup_kind, g.is_canonical, g.dup_score
FROM temp.run_groups AS g
LEFT JOIN {stored} AS m ON m.id = g.id
WHERE m.id IS NULL OR m.dup_group IS NOT g.dup_group OR m.dup_kind IS NOT g.dup_kind
   OR m.is_canonical IS NOT g.is_canonical OR m.dup_score IS NOT g.dup_score
ORDER BY g.id;
