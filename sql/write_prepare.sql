-- Phase 5, before the write lock: everything the write transaction needs, ready in TEMP
-- tables, so that holding the lock costs little more than the writes themselves.
-- The annotation of each page in rowid order (the UPDATE then walks `pages` in order).
DROP TABLE IF EXISTS temp.run_write;
CREATE TEMP TABLE run_write (
    id INTEGER PRIMARY KEY, url_hash TEXT NOT NULL, canonical_url, content_hash,
    exact_group_size, dup_group, dup_group_size, canonical_id, is_canonical, dup_kind, dup_score
);
INSERT INTO temp.run_write
SELECT a.id, p.url_hash, p.canonical_url, p.content_hash, x.exact_group_size, a.dup_group,
       a.dup_group_size, a.canonical_id, a.is_canonical, a.dup_kind, a.dup_score
FROM temp.run_assign AS a
JOIN temp.run_prepared AS p ON p.id = a.id
LEFT JOIN (SELECT content_hash, COUNT(*) AS exact_group_size
           FROM temp.run_prepared WHERE ignored IS NULL GROUP BY content_hash) AS x
       ON x.content_hash = p.content_hash AND p.ignored IS NULL
ORDER BY a.id;
