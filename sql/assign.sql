-- Final assignment of every page: its group, the group's canonical, how it joined.
-- run_near maps an exact winner to the centre of its near-duplicate group (phase 4); an exact
-- winner without a row there is its own centre.
CREATE TEMP TABLE run_assign AS
WITH base AS (
    SELECT p.id,
           u.url_winner,
           e.exact_winner,
           COALESCE(n.center, e.exact_winner) AS canonical_id,
           n.score AS near_score
    FROM temp.run_prepared AS p
    JOIN temp.run_url_election AS u ON u.id = p.id
    JOIN temp.run_exact_election AS e ON e.id = u.url_winner
    LEFT JOIN temp.run_near AS n ON n.id = e.exact_winner
)
SELECT id,
       canonical_id,
       MIN(id) OVER (PARTITION BY canonical_id) AS dup_group,
       COUNT(*) OVER (PARTITION BY canonical_id) AS dup_group_size,
       CASE WHEN id = canonical_id THEN 1 ELSE 0 END AS is_canonical,
       CASE WHEN id = canonical_id THEN NULL
            WHEN id <> url_winner THEN 'url'
            WHEN id <> exact_winner THEN 'exact'
            ELSE 'near' END AS dup_kind,
       CASE WHEN exact_winner = canonical_id THEN 1.0
            ELSE COALESCE(near_score, 1.0) END AS dup_score
FROM base
UNION ALL
SELECT id, NULL, NULL, NULL, NULL, 'ignored', NULL
FROM temp.run_prepared WHERE ignored IS NOT NULL;
CREATE UNIQUE INDEX temp.run_assign_id ON run_assign(id);
