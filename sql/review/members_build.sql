-- The review app's index, the scores' part (after review/groups_build.sql; built by the first
-- request that needs it: the score filters): each group's lowest member score, a member being
-- a page of the group that is not its canonical, from webdedup's state alone
-- (main._webdedup_groups, a few numbers a page). Nothing is read from {pages}, whose rows hold
-- the texts, nor from the prepared rows (their URLs and keys).
-- {score} is a.dup_score, or for a state older than schema 13 the page's own cell.
-- One pass over the groups state in id order, its members alone (a canonical is not a member
-- to score, and every page alone is a canonical), grouped by group: no table of every member
-- (at ten million pages every member's row, canonicals too, sorted into a table keyed by
-- group and then grouped, took 14-15 s). A group the index does not hold (a state written
-- since its groups were read) has a row here that no filter looks up: the filters go through
-- temp.review_groups.
DELETE FROM temp.review_scores;
INSERT INTO temp.review_scores (dup_group, min_score)
SELECT a.dup_group, min({score})
FROM main._webdedup_groups AS a
WHERE a.dup_group IS NOT NULL AND coalesce(a.is_canonical, 0) = 0
GROUP BY a.dup_group;
