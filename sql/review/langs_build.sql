-- The review app's index, the languages' part (after review/groups_build.sql; built by the
-- first request that needs it: the language filter): the language of each group's canonical,
-- from its prepared row (the crawler's language, else the detected one). Nothing is read from
-- {pages}. One pass over the groups state in id order, its canonicals of the index's groups
-- alone, each one's prepared row looked up in that order. (Looked up by group in
-- main._webdedup_group_members, the canonicals come in group order, and SQLite 3.40 drops
-- the ORDER BY of a materialized CTE: the prepared rows were then read at random.) Of a group's
-- pages only its canonical: every member's host and language read together
-- (review/places_build.sql, as before) took 25 s at ten million pages.
DELETE FROM temp.review_langs;
INSERT INTO temp.review_langs (dup_group, lang)
SELECT a.dup_group, w.lang
FROM main._webdedup_groups AS a
JOIN temp.review_groups AS g ON g.dup_group = a.dup_group
LEFT JOIN main._webdedup_prepared AS w ON w.id = a.id
WHERE a.is_canonical = 1;
-- (the language filter's EXISTS: a group's canonical in a language)
CREATE INDEX IF NOT EXISTS temp.review_langs_group ON review_langs(dup_group, lang);
