-- The groups with a member on :host (the host filter), for one request: the host's pages
-- from main._webdedup_hosts (keyed by host), each page's group from main._webdedup_groups,
-- the groups of the index only. As many look-ups as the host has pages, not the members of
-- every group (the hosts of all of them, review/places_build.sql, took 26 s at ten million
-- pages).
DROP TABLE IF EXISTS temp.review_host_groups;
CREATE TEMP TABLE review_host_groups (dup_group INTEGER PRIMARY KEY);
INSERT OR IGNORE INTO temp.review_host_groups (dup_group)
SELECT a.dup_group
FROM main._webdedup_hosts AS h
JOIN main._webdedup_groups AS a ON a.id = h.id
WHERE h.host = :host
  AND a.dup_group IN (SELECT g.dup_group FROM temp.review_groups AS g);
