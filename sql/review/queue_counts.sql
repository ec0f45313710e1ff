-- How much of the queue is left: its pairs and groups, those decided ({decided}:
-- queue_decided.sql, proportional to the verdicts, not to the queue), and the verdicts
-- given since :today (an ISO 8601 UTC date).
WITH decided AS ({decided}),
done_groups AS (
    SELECT d.dup_group FROM decided AS d
    GROUP BY d.dup_group
    HAVING count(*) = (SELECT pairs FROM temp.review_queue_groups AS g
                       WHERE g.dup_group = d.dup_group)
)
SELECT (SELECT count(*) FROM temp.review_queue) AS pairs,
       (SELECT count(*) FROM decided) AS pairs_decided,
       (SELECT count(*) FROM temp.review_queue_groups) AS groups,
       (SELECT count(*) FROM done_groups) AS groups_decided,
       (SELECT count(*) FROM {verdicts} AS v WHERE v.created_at >= :today) AS today
