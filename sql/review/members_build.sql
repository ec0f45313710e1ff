-- The review app's index of the duplicate groups (2+ pages), in its own TEMP table: the
-- output columns sit past each page's text, so the app reads them once a run (not once a
-- request), the members found by _webdedup_groups' index on dup_group. {title}, {lang} are quoted columns of p or NULL.
DROP TABLE IF EXISTS temp.review_members;
CREATE TEMP TABLE review_members (
    id INTEGER PRIMARY KEY, dup_group INTEGER NOT NULL, size INTEGER NOT NULL,
    is_canonical INTEGER NOT NULL, dup_kind TEXT, dup_score REAL,
    url TEXT, title TEXT, host TEXT, lang TEXT
);
INSERT INTO temp.review_members
SELECT p.{rowid}, p.dup_group, p.dup_group_size, p.is_canonical, p.dup_kind, p.dup_score,
       p.{url}, {title}, w.host, {lang}
FROM main._webdedup_groups AS a
JOIN {pages} AS p ON p.{rowid} = a.id AND p.dup_group = a.dup_group  -- a row renumbered by VACUUM carries another group: left out
LEFT JOIN main._webdedup_prepared AS w ON w.id = p.{rowid}
-- {groups} is sql/group_kinds.sql: the one definition of a group (webdedup/store/counts.py)
WHERE a.dup_group IN (SELECT dup_group FROM {groups});
CREATE INDEX temp.review_members_group ON review_members(dup_group);
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
