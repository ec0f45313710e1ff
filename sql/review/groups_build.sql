-- The review app's index of a run, first part (built when a request first reads the run):
-- the duplicate groups (2+ pages) and their sizes, in TEMP tables of its connection, from
-- main._webdedup_group_kinds alone (a few numbers a duplicate, read in one pass): what the
-- list of groups, largest first, and a group's page need. The queue (review/queue_build.sql),
-- each group's lowest score (review/members_build.sql), its canonical's language
-- (review/langs_build.sql) and the members' hosts (review/places_build.sql) are built by the
-- first request that needs each; their tables start empty here, so every query compiles,
-- and the app builds a part before it reads it.
-- {groups} is sql/group_kinds.sql: the one definition of a group (webdedup/store/counts.py).
DROP TABLE IF EXISTS temp.review_groups;
CREATE TEMP TABLE review_groups (dup_group INTEGER PRIMARY KEY, size INTEGER NOT NULL);
INSERT INTO temp.review_groups SELECT dup_group, size FROM {groups} ORDER BY dup_group;
CREATE INDEX temp.review_groups_size ON review_groups(size DESC, dup_group);
DROP TABLE IF EXISTS temp.review_scores;
CREATE TEMP TABLE review_scores (dup_group INTEGER PRIMARY KEY, min_score REAL);
DROP TABLE IF EXISTS temp.review_langs;
CREATE TEMP TABLE review_langs (dup_group INTEGER NOT NULL, lang TEXT);
DROP TABLE IF EXISTS temp.review_places;
CREATE TEMP TABLE review_places (
    id INTEGER PRIMARY KEY, dup_group INTEGER NOT NULL, host TEXT
);
DROP TABLE IF EXISTS temp.review_queue_groups;
CREATE TEMP TABLE review_queue_groups (
    dup_group INTEGER PRIMARY KEY, part INTEGER NOT NULL, closeness REAL NOT NULL,
    first_id INTEGER NOT NULL, pairs INTEGER NOT NULL, canonical INTEGER
);
DROP TABLE IF EXISTS temp.review_queue;
CREATE TEMP TABLE review_queue (
    pos INTEGER PRIMARY KEY, id INTEGER NOT NULL, canonical INTEGER NOT NULL,
    dup_group INTEGER NOT NULL, kind TEXT, score REAL
);
-- (the search's table of URLs and titles is built when a search is made, a host filter's
-- groups for each host asked: review/host_groups.sql)
DROP TABLE IF EXISTS temp.review_search;
DROP TABLE IF EXISTS temp.review_host_groups;
