-- The reviewer's queue (after members_build.sql, once a run, built with it): one row a pair to judge, in the
-- order a reviewer meets them. First the near-duplicate members, by group, the group whose
-- scores lie closest to the run's :threshold first (a member and canonical the run found
-- barely similar enough, or only just not too similar, are the likeliest mistakes), within a
-- group the closest member first; then the groups without a near member (same URL or same
-- text: only their canonical is to judge), largest first, each by its first member.
-- review_queue_groups: each group's place (`part`, `closeness`) and how many pairs it has in
-- the queue (a group is decided when all of them are).
DROP TABLE IF EXISTS temp.review_queue_groups;
CREATE TEMP TABLE review_queue_groups (
    dup_group INTEGER PRIMARY KEY, part INTEGER NOT NULL, closeness REAL NOT NULL,
    first_id INTEGER NOT NULL, pairs INTEGER NOT NULL
);
INSERT INTO temp.review_queue_groups
SELECT dup_group,
       CASE WHEN count(CASE WHEN dup_kind = 'near' THEN 1 END) > 0 THEN 0 ELSE 1 END,
       coalesce(min(CASE WHEN dup_kind = 'near'
                         THEN abs(coalesce(dup_score, 0) - :threshold) END), -max(size)),
       min(id),
       max(count(CASE WHEN dup_kind = 'near' THEN 1 END), 1)
FROM temp.review_members
WHERE is_canonical = 0
GROUP BY dup_group;
DROP TABLE IF EXISTS temp.review_queue;
CREATE TEMP TABLE review_queue (
    pos INTEGER PRIMARY KEY, id INTEGER NOT NULL, canonical INTEGER NOT NULL,
    dup_group INTEGER NOT NULL, kind TEXT, score REAL
);
INSERT INTO temp.review_queue (id, canonical, dup_group, kind, score)
SELECT m.id, g.canonical, m.dup_group, m.dup_kind, m.dup_score
FROM temp.review_members AS m
JOIN temp.review_queue_groups AS q ON q.dup_group = m.dup_group
JOIN temp.review_scores AS g ON g.dup_group = m.dup_group
WHERE m.is_canonical = 0 AND g.canonical IS NOT NULL
  AND ((q.part = 0 AND m.dup_kind = 'near') OR (q.part = 1 AND m.id = q.first_id))
ORDER BY q.part, q.closeness, m.dup_group,
         abs(coalesce(m.dup_score, 0) - :threshold), m.id;
CREATE INDEX temp.review_queue_id ON review_queue(id);
