-- The groups rows of the region that change (groups_changed.sql found them), in an
-- incremental run whose write is not batched (a batched one writes them in batches ahead:
-- pipeline.phase5_write_back._groups_rows); their rows of the group and kind tables go out
-- before (group_keys_drop.sql) and in after (group_keys_add.sql).
DELETE FROM main._webdedup_groups WHERE id IN (SELECT id FROM temp.run_groups_gone);
INSERT OR REPLACE INTO main._webdedup_groups (id, dup_group, dup_kind, is_canonical, dup_score)
SELECT id, dup_group, dup_kind, is_canonical, dup_score FROM temp.run_groups_changed;
