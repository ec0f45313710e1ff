-- Final assignment of every page: its group, the group's canonical, how it joined.
-- run_near maps an exact winner to the centre of its near-duplicate group (phase 4); an exact
-- winner without a row there is its own centre. A URL winner whose text is thin on its host
-- (temp.run_thin_texts: webdedup.pipeline.own_content) is no duplicate of anything by content:
-- it is its own canonical, kind 'thin' (its URL duplicates stay in its group).
-- First each page's canonical (run_canonical, in id order), then the groups of two pages or
-- more (a page whose canonical is another page, and that canonical): most pages are alone in
-- their group, and a window over every page sorted them all by their canonical.
DROP TABLE IF EXISTS temp.run_canonical;
CREATE TEMP TABLE run_canonical (id INTEGER PRIMARY KEY, url_winner INTEGER NOT NULL,
                                 exact_winner INTEGER NOT NULL, canonical_id INTEGER NOT NULL,
                                 near_score REAL, thin INTEGER NOT NULL);
INSERT INTO temp.run_canonical
SELECT p.id,
       u.url_winner,
       e.exact_winner,
       CASE WHEN t.reason IS NOT NULL THEN u.url_winner
            ELSE COALESCE(n.center, e.exact_winner) END,
       n.score,
       t.reason IS NOT NULL
FROM temp.run_prepared AS p
JOIN temp.run_url_election AS u ON u.id = p.id
JOIN temp.run_exact_election AS e ON e.id = u.url_winner
JOIN temp.run_prepared AS w ON w.id = u.url_winner
LEFT JOIN temp.run_near AS n ON n.id = e.exact_winner
LEFT JOIN temp.run_thin_texts AS t ON t.host = w.host AND t.content_hash = w.content_hash
ORDER BY p.id;
DROP TABLE IF EXISTS temp.run_shared_groups;
CREATE TEMP TABLE run_shared_groups (canonical_id INTEGER PRIMARY KEY,
                                     dup_group INTEGER NOT NULL, size INTEGER NOT NULL);
INSERT INTO temp.run_shared_groups
SELECT canonical_id, min(id), count(*)
FROM temp.run_canonical
WHERE canonical_id IN (SELECT canonical_id FROM temp.run_canonical WHERE id <> canonical_id)
GROUP BY canonical_id;
CREATE TEMP TABLE run_assign (id INTEGER PRIMARY KEY, canonical_id INTEGER, dup_group INTEGER,
                              dup_group_size INTEGER, is_canonical INTEGER, dup_kind TEXT,
                              dup_score REAL);
INSERT INTO temp.run_assign
SELECT id,
       canonical_id,
       dup_group,
       dup_group_size,
       is_canonical,
       dup_kind,
       dup_score
FROM (
    SELECT b.id,
           b.canonical_id,
           coalesce(g.dup_group, b.canonical_id) AS dup_group,
           coalesce(g.size, 1) AS dup_group_size,
           CASE WHEN b.id = b.canonical_id THEN 1 ELSE 0 END AS is_canonical,
           CASE WHEN b.id = b.canonical_id THEN CASE WHEN b.thin THEN 'thin' END
                WHEN b.id <> b.url_winner THEN 'url'
                WHEN b.id <> b.exact_winner THEN 'exact'
                ELSE 'near' END AS dup_kind,
           CASE WHEN b.thin AND b.id = b.canonical_id THEN NULL
                WHEN b.exact_winner = b.canonical_id OR b.thin THEN 1.0
                ELSE COALESCE(b.near_score, 1.0) END AS dup_score
    FROM temp.run_canonical AS b
    LEFT JOIN temp.run_shared_groups AS g ON g.canonical_id = b.canonical_id
    UNION ALL
    SELECT id, NULL, NULL, NULL, NULL, 'ignored', NULL
    FROM temp.run_prepared WHERE ignored IS NOT NULL
)
ORDER BY id;
DROP TABLE temp.run_canonical;
DROP TABLE temp.run_shared_groups;
-- the thin pages and why (phase 5 keeps them in _webdedup_thin)
DELETE FROM temp.run_thin;
INSERT INTO temp.run_thin (id, reason)
SELECT a.id, t.reason
FROM temp.run_assign AS a
JOIN temp.run_prepared AS p ON p.id = a.id
JOIN temp.run_thin_texts AS t ON t.host = p.host AND t.content_hash = p.content_hash
WHERE a.dup_kind = 'thin';
