-- The review app's index, the members' part (after review/groups_build.sql; built by the
-- first request that needs the members' scores: the score filters): each group
-- member's group, kind, canonical flag and score from webdedup's state alone
-- (main._webdedup_groups, a few numbers a page), and each group's canonical and lowest
-- member score. Nothing is read from {pages}, whose rows hold the texts (at three million
-- pages reading every member's row took 23 s), nor from the prepared rows (their URLs and
-- keys: review/places_build.sql reads them for the language filter, the host list and a
-- search).
-- {score} is a.dup_score, or for a state older than schema 13 the page's own cell.
-- (temp.review_members, made by groups_build.sql, is keyed by group: the scores' GROUP BY
-- goes down it in order; filled in that order, appended, no second index)
DELETE FROM temp.review_members;
-- every page's group row in id order, each looked up in the groups (a read of the state in
-- its order: found by group, the members' rows were read at random), sorted by group
INSERT INTO temp.review_members (dup_group, is_canonical, id, size, dup_kind, dup_score)
SELECT a.dup_group, coalesce(a.is_canonical, 0), a.id, g.size, a.dup_kind, {score}
FROM main._webdedup_groups AS a
JOIN temp.review_groups AS g ON g.dup_group = a.dup_group
ORDER BY 1, 2, 3;
DELETE FROM temp.review_scores;
INSERT INTO temp.review_scores
SELECT dup_group, max(CASE WHEN is_canonical = 1 THEN id END),
       min(CASE WHEN is_canonical = 0 THEN dup_score END)
FROM temp.review_members
GROUP BY dup_group;
