-- The review app's index of the duplicate groups (2+ pages), in its own TEMP table, once a
-- run, from webdedup's state alone: each member's group, kind, canonical flag and score
-- (main._webdedup_groups), its host and language (the prepared
-- row: the crawler's language, else the detected one). Nothing is read from {pages}, whose
-- rows hold the texts: at three million pages reading every member's row took 23 s. The
-- URLs and titles a search matches are read when a search is made (review/search_build.sql).
-- {groups} is sql/group_kinds.sql: the one definition of a group (webdedup/store/counts.py);
-- {score} is a.dup_score, or for a state older than schema 13 the page's own cell.
DROP TABLE IF EXISTS temp.review_members;
CREATE TEMP TABLE review_members (
    id INTEGER PRIMARY KEY, dup_group INTEGER NOT NULL, size INTEGER NOT NULL,
    is_canonical INTEGER NOT NULL, dup_kind TEXT, dup_score REAL, host TEXT, lang TEXT
);
DROP TABLE IF EXISTS temp.review_sizes;
CREATE TEMP TABLE review_sizes (dup_group INTEGER PRIMARY KEY, size INTEGER NOT NULL);
INSERT INTO temp.review_sizes SELECT dup_group, size FROM {groups};
-- every page's group row in id order, each looked up in the groups (a read of the state in
-- its order: found by group, the members' rows and prepared rows were read at random)
INSERT INTO temp.review_members
SELECT a.id, a.dup_group, g.size, coalesce(a.is_canonical, 0), a.dup_kind, {score},
       w.host, w.lang
FROM main._webdedup_groups AS a
JOIN temp.review_sizes AS g ON g.dup_group = a.dup_group
LEFT JOIN main._webdedup_prepared AS w ON w.id = a.id
ORDER BY a.id;
DROP TABLE temp.review_sizes;
-- (covering what the groups' and the queue's GROUP BY read: they scan it, no row looked up)
CREATE INDEX temp.review_members_group
    ON review_members(dup_group, is_canonical, dup_kind, dup_score, size, lang);
DROP TABLE IF EXISTS temp.review_groups;
CREATE TEMP TABLE review_groups (
    dup_group INTEGER PRIMARY KEY, size INTEGER NOT NULL, canonical INTEGER,
    min_score REAL, lang TEXT
);
INSERT INTO temp.review_groups
SELECT dup_group, max(size), max(CASE WHEN is_canonical = 1 THEN id END),
       min(CASE WHEN is_canonical = 0 THEN dup_score END),
       max(CASE WHEN is_canonical = 1 THEN lang END)
FROM temp.review_members
GROUP BY dup_group;
CREATE INDEX temp.review_groups_size ON review_groups(size DESC, dup_group);
-- (the search's table of URLs and titles is built when a search is made)
DROP TABLE IF EXISTS temp.review_search;
