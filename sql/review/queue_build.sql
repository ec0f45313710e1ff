-- The reviewer's queue (after members_build.sql, once a run): one row a pair to judge, in the
-- order a reviewer meets them. First the near-duplicate members, by group, the group whose
-- scores lie closest to the run's :threshold first (a member and canonical the run found
-- barely similar enough, or only just not too similar, are the likeliest mistakes), within a
-- group the closest member first; then the groups without a near member (same URL or same
-- text: only their canonical is to judge), largest first, each by its first member.
DROP TABLE IF EXISTS temp.review_queue;
CREATE TEMP TABLE review_queue (
    pos INTEGER PRIMARY KEY, id INTEGER NOT NULL, canonical INTEGER NOT NULL,
    dup_group INTEGER NOT NULL, kind TEXT, score REAL
);
WITH near AS (
    SELECT dup_group, min(abs(coalesce(dup_score, 0) - :threshold)) AS closeness
    FROM temp.review_members WHERE is_canonical = 0 AND dup_kind = 'near'
    GROUP BY dup_group
), firsts AS (
    SELECT dup_group, min(id) AS id FROM temp.review_members
    WHERE is_canonical = 0 AND dup_group NOT IN (SELECT dup_group FROM near)
    GROUP BY dup_group
)
INSERT INTO temp.review_queue (id, canonical, dup_group, kind, score)
SELECT id, canonical, dup_group, dup_kind, dup_score FROM (
    SELECT m.id, g.canonical, m.dup_group, m.dup_kind, m.dup_score,
           0 AS part, n.closeness AS o1, abs(coalesce(m.dup_score, 0) - :threshold) AS o2
    FROM temp.review_members AS m
    JOIN near AS n ON n.dup_group = m.dup_group
    JOIN temp.review_groups AS g ON g.dup_group = m.dup_group
    WHERE m.is_canonical = 0 AND m.dup_kind = 'near'
    UNION ALL
    SELECT m.id, g.canonical, m.dup_group, m.dup_kind, m.dup_score, 1, -g.size, 0
    FROM firsts AS f
    JOIN temp.review_members AS m ON m.id = f.id
    JOIN temp.review_groups AS g ON g.dup_group = m.dup_group
)
WHERE canonical IS NOT NULL
ORDER BY part, o1, dup_group, o2, id;
CREATE INDEX temp.review_queue_id ON review_queue(id);
CREATE INDEX temp.review_queue_canonical ON review_queue(canonical);
-- how many pairs each group has in the queue (a group is decided when all of them are)
DROP TABLE IF EXISTS temp.review_queue_groups;
CREATE TEMP TABLE review_queue_groups (dup_group INTEGER PRIMARY KEY, pairs INTEGER NOT NULL);
INSERT INTO temp.review_queue_groups
SELECT dup_group, count(*) FROM temp.review_queue GROUP BY dup_group;
