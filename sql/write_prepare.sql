-- Phase 5, before the write lock: everything the write transaction needs, ready in TEMP
-- tables, so that holding the lock costs little more than the writes themselves. The state's
-- lookup tables (run_url_keys, run_content_hashes, run_hosts) are ready already:
-- lookup_keys.sql, made by phase 2 (the elections read them) or by phase 5 itself.
-- The texts that several pages share (exact_group_size: the pages of a content hash), found
-- in run_content_hashes' order: most texts are one page's, and grouping every prepared row
-- by its hash sorted them all.
DROP TABLE IF EXISTS temp.run_shared_texts;
CREATE TEMP TABLE run_shared_texts (content_hash TEXT PRIMARY KEY, pages INTEGER NOT NULL)
    WITHOUT ROWID;
INSERT INTO temp.run_shared_texts
SELECT content_hash, count(*)
FROM temp.run_prepared
WHERE ignored IS NULL
  AND content_hash IN (SELECT content_hash FROM temp.run_content_hashes
                       GROUP BY content_hash HAVING count(*) > 1)
GROUP BY content_hash;
-- The annotation of each page in rowid order (the UPDATE then walks `pages` in order).
DROP TABLE IF EXISTS temp.run_write;
-- `url` is the row's URL cell as this run read it (same snapshot as phase 1): the write-back
-- compares it with the cell as it is then, with no function call in the UPDATE (a function
-- may fail, so SQLite would keep a statement journal as large as the rows it rewrites).
CREATE TEMP TABLE run_write (
    id INTEGER PRIMARY KEY, url, canonical_url, content_hash,
    exact_group_size, dup_group, dup_group_size, canonical_id, is_canonical, dup_kind, dup_score
);
INSERT INTO temp.run_write
SELECT a.id, pg.{url}, p.canonical_url, p.content_hash,
       CASE WHEN p.ignored IS NULL THEN coalesce(x.pages, 1) END, a.dup_group,
       a.dup_group_size, a.canonical_id, a.is_canonical, a.dup_kind, a.dup_score
FROM temp.run_assign AS a
JOIN temp.run_prepared AS p ON p.id = a.id
JOIN main.{pages} AS pg ON pg.{rowid} = a.id
LEFT JOIN temp.run_shared_texts AS x ON x.content_hash = p.content_hash AND p.ignored IS NULL
ORDER BY a.id;
DROP TABLE temp.run_shared_texts;
-- Each page's group, kind, canonical flag and score (main._webdedup_groups), in rowid order.
DROP TABLE IF EXISTS temp.run_groups;
CREATE TEMP TABLE run_groups (
    id INTEGER PRIMARY KEY, dup_group INTEGER, dup_kind TEXT, is_canonical INTEGER,
    dup_score REAL
);
INSERT INTO temp.run_groups
SELECT id, dup_group, dup_kind, is_canonical, dup_score FROM temp.run_write ORDER BY id;
