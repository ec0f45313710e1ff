-- The review app's index, the hosts' part (after review/groups_build.sql; built by the first
-- request that needs it: the host list, a search; a host filter looks its host's pages up
-- instead, review/host_groups.sql, and the language filter its groups' canonicals,
-- review/langs_build.sql): each group member's host from its prepared row, read in id order.
-- Nothing is read from {pages}.
-- (temp.review_places is made, empty, by groups_build.sql; its index comes after the rows)
DELETE FROM temp.review_places;
INSERT INTO temp.review_places (id, dup_group, host)
SELECT a.id, a.dup_group, w.host
FROM main._webdedup_groups AS a
JOIN temp.review_groups AS g ON g.dup_group = a.dup_group
LEFT JOIN main._webdedup_prepared AS w ON w.id = a.id
ORDER BY a.id;
-- (by host: the host list's count)
CREATE INDEX IF NOT EXISTS temp.review_places_host ON review_places(host);
