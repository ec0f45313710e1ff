-- Final assignment of every page: its group, the group's canonical, how it joined.
-- run_near maps an exact winner to the centre of its near-duplicate group (phase 4); an exact
-- winner without a row there is its own centre. A URL winner whose text is thin on its host
-- (temp.run_thin_texts: webdedup.pipeline.own_content) is no duplicate of anything by content:
-- it is its own canonical, kind 'thin' (its URL duplicates stay in its group).
CREATE TEMP TABLE run_assign AS
WITH base AS (
    SELECT p.id,
           u.url_winner,
           e.exact_winner,
           CASE WHEN t.reason IS NOT NULL THEN u.url_winner
                ELSE COALESCE(n.center, e.exact_winner) END AS canonical_id,
           n.score AS near_score,
           t.reason IS NOT NULL AS thin
    FROM temp.run_prepared AS p
    JOIN temp.run_url_election AS u ON u.id = p.id
    JOIN temp.run_exact_election AS e ON e.id = u.url_winner
    JOIN temp.run_prepared AS w ON w.id = u.url_winner
    LEFT JOIN temp.run_near AS n ON n.id = e.exact_winner
    LEFT JOIN temp.run_thin_texts AS t ON t.host = w.host AND t.content_hash = w.content_hash
)
SELECT id,
       canonical_id,
       MIN(id) OVER (PARTITION BY canonical_id) AS dup_group,
       COUNT(*) OVER (PARTITION BY canonical_id) AS dup_group_size,
       CASE WHEN id = canonical_id THEN 1 ELSE 0 END AS is_canonical,
       CASE WHEN id = canonical_id THEN CASE WHEN thin THEN 'thin' END
            WHEN id <> url_winner THEN 'url'
            WHEN id <> exact_winner THEN 'exact'
            ELSE 'near' END AS dup_kind,
       CASE WHEN thin AND id = canonical_id THEN NULL
            WHEN exact_winner = canonical_id OR thin THEN 1.0
            ELSE COALESCE(near_score, 1.0) END AS dup_score
FROM base
UNION ALL
SELECT id, NULL, NULL, NULL, NULL, 'ignored', NULL
FROM temp.run_prepared WHERE ignored IS NOT NULL;
CREATE UNIQUE INDEX temp.run_assign_id ON run_assign(id);
-- the thin pages and why (phase 5 keeps them in _webdedup_thin)
DELETE FROM temp.run_thin;
INSERT INTO temp.run_thin (id, reason)
SELECT a.id, t.reason
FROM temp.run_assign AS a
JOIN temp.run_prepared AS p ON p.id = a.id
JOIN temp.run_thin_texts AS t ON t.host = p.host AND t.content_hash = p.content_hash
WHERE a.dup_kind = 'thin';
