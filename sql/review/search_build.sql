-- The URL and title of each member of the review app's index, read from {pages} the first
-- time a run's groups are searched: one pass over the groups state in id order, the index's
-- groups' members alone, each one's row of {pages} looked up in that order (the index itself
-- is built from the state alone). A row renumbered by VACUUM, which now carries another
-- group, is left out. {title} is a quoted column of p or NULL. (Not through the hosts' part,
-- review/places_build.sql: at ten million pages their prepared rows and the index on host
-- took 16 s more.)
DROP TABLE IF EXISTS temp.review_search;
CREATE TEMP TABLE review_search (id INTEGER PRIMARY KEY, dup_group INTEGER NOT NULL,
                                 url TEXT, title TEXT);
INSERT INTO temp.review_search
SELECT a.id, a.dup_group, p.{url}, {title}
FROM main._webdedup_groups AS a
JOIN temp.review_groups AS g ON g.dup_group = a.dup_group
JOIN {pages} AS p ON p.{rowid} = a.id AND p.dup_group = a.dup_group
ORDER BY a.id;
CREATE INDEX temp.review_search_group ON review_search(dup_group);
