-- The review app's index, the hosts' part (after review/groups_build.sql; built by the first
-- request that needs it: the language filter, the host list, a search; a host filter looks
-- its host's pages up instead, review/host_groups.sql): each
-- group member's host and language from its prepared row (the crawler's language, else the
-- detected one), read in id order. Nothing is read from {pages}.
-- (temp.review_places is made, empty, by groups_build.sql; its indexes come after the rows)
DELETE FROM temp.review_places;
INSERT INTO temp.review_places
SELECT a.id, a.dup_group, coalesce(a.is_canonical, 0), w.host, w.lang
FROM main._webdedup_groups AS a
JOIN temp.review_groups AS g ON g.dup_group = a.dup_group
LEFT JOIN main._webdedup_prepared AS w ON w.id = a.id
ORDER BY a.id;
-- (a group's members by the canonical's language: the language filter's EXISTS; by host
-- alone: the host list's count)
CREATE INDEX IF NOT EXISTS temp.review_places_group
    ON review_places(dup_group, is_canonical, lang, host);
CREATE INDEX IF NOT EXISTS temp.review_places_host ON review_places(host);
