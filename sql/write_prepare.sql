-- Phase 5, before the write lock: everything the write transaction needs, ready in TEMP
-- tables, so that holding the lock costs little more than the writes themselves.
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
SELECT a.id, pg.{url}, p.canonical_url, p.content_hash, x.exact_group_size, a.dup_group,
       a.dup_group_size, a.canonical_id, a.is_canonical, a.dup_kind, a.dup_score
FROM temp.run_assign AS a
JOIN temp.run_prepared AS p ON p.id = a.id
JOIN main.{pages} AS pg ON pg.{rowid} = a.id
LEFT JOIN (SELECT content_hash, COUNT(*) AS exact_group_size
           FROM temp.run_prepared WHERE ignored IS NULL GROUP BY content_hash) AS x
       ON x.content_hash = p.content_hash AND p.ignored IS NULL
ORDER BY a.id;
-- Each page's group, kind and canonical flag (main._webdedup_groups), in rowid order.
DROP TABLE IF EXISTS temp.run_groups;
CREATE TEMP TABLE run_groups (
    id INTEGER PRIMARY KEY, dup_group INTEGER, dup_kind TEXT, is_canonical INTEGER
);
INSERT INTO temp.run_groups
SELECT id, dup_group, dup_kind, is_canonical FROM temp.run_write ORDER BY id;
-- The state's lookup tables (main._webdedup_url_keys, _content_hashes, _hosts) as this
-- run leaves them for its pages, in key order: phase 5 copies them in that order.
DROP TABLE IF EXISTS temp.run_url_keys;
CREATE TEMP TABLE run_url_keys (url_key TEXT NOT NULL, id INTEGER NOT NULL,
                                PRIMARY KEY (url_key, id)) WITHOUT ROWID;
INSERT INTO temp.run_url_keys
SELECT url_key, id FROM temp.run_prepared ORDER BY url_key, id;
DROP TABLE IF EXISTS temp.run_content_hashes;
CREATE TEMP TABLE run_content_hashes (content_hash TEXT NOT NULL, id INTEGER NOT NULL,
                                      PRIMARY KEY (content_hash, id)) WITHOUT ROWID;
INSERT INTO temp.run_content_hashes
SELECT content_hash, id FROM temp.run_prepared WHERE content_hash IS NOT NULL
ORDER BY content_hash, id;
DROP TABLE IF EXISTS temp.run_hosts;
CREATE TEMP TABLE run_hosts (host TEXT NOT NULL, id INTEGER NOT NULL,
                             PRIMARY KEY (host, id)) WITHOUT ROWID;
INSERT INTO temp.run_hosts
SELECT host, id FROM temp.run_prepared WHERE host IS NOT NULL ORDER BY host, id;
