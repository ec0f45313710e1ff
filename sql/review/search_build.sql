-- The URL and title of each member of the review app's index (temp.review_places, in id
-- order: review/places_build.sql), read from {pages} the first time a run's groups are
-- searched (a pass over the members' rows: the index itself is built from the state alone). A row renumbered by VACUUM, which
-- now carries another group, is left out. {title} is a quoted column of p or NULL.
DROP TABLE IF EXISTS temp.review_search;
CREATE TEMP TABLE review_search (id INTEGER PRIMARY KEY, dup_group INTEGER NOT NULL,
                                 url TEXT, title TEXT);
INSERT INTO temp.review_search
SELECT m.id, m.dup_group, p.{url}, {title}
FROM temp.review_places AS m
JOIN {pages} AS p ON p.{rowid} = m.id AND p.dup_group = m.dup_group;
CREATE INDEX temp.review_search_group ON review_search(dup_group);
