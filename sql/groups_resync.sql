-- The groups rows of the pages changed since the run's snapshot (queued after :max_seq) are
-- their rows' own annotations: the write-back skipped a row whose URL changed meanwhile, and a
-- row deleted meanwhile has none, while run_groups held the run's view of both. The next run
-- recomputes them (they stay queued). {pages}, {rowid}: the crawler's table, its rowid alias.
-- Their rows of the group and kind tables go out before and in after (group_keys_*.sql).
DELETE FROM main._webdedup_groups
WHERE id IN (SELECT id FROM main._webdedup_changes WHERE seq > :max_seq);
INSERT INTO main._webdedup_groups (id, dup_group, dup_kind, is_canonical, dup_score)
SELECT p.{rowid}, p.dup_group, p.dup_kind, p.is_canonical, p.dup_score
FROM main.{pages} AS p
WHERE p.{rowid} IN (SELECT id FROM main._webdedup_changes WHERE seq > :max_seq)
  AND (p.dup_group IS NOT NULL OR p.dup_kind IS NOT NULL);
