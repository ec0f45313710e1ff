-- The reviewer's queue (after review/groups_build.sql; built by the first request that needs
-- it: a queue page, a pair's link followed, an undo): one row a pair to judge, in the order a
-- reviewer meets them. First the near-duplicate members, by group, the group whose scores
-- lie closest to the run's :threshold first (a member and canonical the run found barely
-- similar enough, or only just not too similar, are the likeliest mistakes), within a group
-- the closest member first; then the groups without a near member (same URL or same text:
-- only their canonical is to judge), largest first, each by its first member.
-- From webdedup's state alone, and of all the groups' members only the near ones and each
-- group's canonical and first member: the near members with their scores from
-- main._webdedup_groups ({score}: a.dup_score, or for a state older than schema 13 the
-- page's own cell), sorted by group, a group's canonical and first member by
-- look-ups in main._webdedup_group_members (at ten million pages every member's row read and
-- sorted, 5.4 million, took most of the 23 s the first queue item waited).
-- review_queue_groups: each group's place (`part`, `closeness`), its canonical, and how many
-- pairs it has in the queue (a group is decided when all of them are).
DROP TABLE IF EXISTS temp.review_near;
CREATE TEMP TABLE review_near (
    dup_group INTEGER NOT NULL, id INTEGER NOT NULL, dup_kind TEXT, dup_score REAL,
    PRIMARY KEY (dup_group, id)
) WITHOUT ROWID;
-- (a pass over the groups state in id order, sorted by group: at ten million pages this
-- statement took 2.5 s against 4.4-5.0 s for each near row of _webdedup_group_kinds looked
-- up in it)
INSERT INTO temp.review_near (dup_group, id, dup_kind, dup_score)
SELECT a.dup_group, a.id, a.dup_kind, {score}
FROM main._webdedup_groups AS a
WHERE a.dup_kind = 'near' AND a.dup_group IS NOT NULL AND coalesce(a.is_canonical, 0) = 0
ORDER BY a.dup_group, a.id;
DROP TABLE IF EXISTS temp.review_queue_groups;
CREATE TEMP TABLE review_queue_groups (
    dup_group INTEGER PRIMARY KEY, part INTEGER NOT NULL, closeness REAL NOT NULL,
    first_id INTEGER NOT NULL, pairs INTEGER NOT NULL, canonical INTEGER
);
-- the groups of the index (a state written since they were read may hold more near
-- members: a batched run, a prune) with near members (first_id: their first near member),
-- then the others, largest first, by their first member (a group of the index has one,
-- unless the state changed since the groups were read), each with its canonical
INSERT INTO temp.review_queue_groups (dup_group, part, closeness, first_id, pairs, canonical)
SELECT n.dup_group, 0, min(abs(coalesce(n.dup_score, 0) - :threshold)), min(n.id), count(*),
       (SELECT max(m.id) FROM main._webdedup_group_members AS m
        WHERE m.dup_group = n.dup_group AND m.is_canonical = 1)
FROM temp.review_near AS n
WHERE n.dup_group IN (SELECT g.dup_group FROM temp.review_groups AS g)
GROUP BY n.dup_group;
INSERT INTO temp.review_queue_groups (dup_group, part, closeness, first_id, pairs, canonical)
SELECT dup_group, 1, -size, first_id, 1,
       (SELECT max(m.id) FROM main._webdedup_group_members AS m
        WHERE m.dup_group = g.dup_group AND m.is_canonical = 1)
FROM (SELECT g.dup_group, g.size,
             (SELECT min(m.id) FROM main._webdedup_group_members AS m
              WHERE m.dup_group = g.dup_group AND m.is_canonical = 0) AS first_id
      FROM temp.review_groups AS g
      WHERE NOT EXISTS (SELECT 1 FROM temp.review_near AS n WHERE n.dup_group = g.dup_group)
     ) AS g
WHERE first_id IS NOT NULL;
DROP TABLE IF EXISTS temp.review_queue;
CREATE TEMP TABLE review_queue (
    pos INTEGER PRIMARY KEY, id INTEGER NOT NULL, canonical INTEGER NOT NULL,
    dup_group INTEGER NOT NULL, kind TEXT, score REAL
);
-- (the near members first, then one pair a group without: each part appended in its order)
INSERT INTO temp.review_queue (id, canonical, dup_group, kind, score)
SELECT n.id, q.canonical, n.dup_group, n.dup_kind, n.dup_score
FROM temp.review_queue_groups AS q
JOIN temp.review_near AS n ON n.dup_group = q.dup_group
WHERE q.part = 0 AND q.canonical IS NOT NULL
ORDER BY q.closeness, n.dup_group, abs(coalesce(n.dup_score, 0) - :threshold), n.id;
INSERT INTO temp.review_queue (id, canonical, dup_group, kind, score)
SELECT q.first_id, q.canonical, q.dup_group, a.dup_kind, {score}
FROM temp.review_queue_groups AS q
JOIN main._webdedup_groups AS a ON a.id = q.first_id
WHERE q.part = 1 AND q.canonical IS NOT NULL
ORDER BY q.closeness, q.dup_group;
DROP TABLE temp.review_near;
CREATE INDEX temp.review_queue_id ON review_queue(id);
