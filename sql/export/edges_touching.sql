-- The verified edges with an end among the members of up to two duplicate groups (and the
-- two pages themselves, for pages outside any group).
WITH members AS (
    SELECT id FROM main._webdedup_group_members WHERE dup_group IN (:group_a, :group_b)
    UNION SELECT :id_a UNION SELECT :id_b
)
SELECT e.a, e.b, e.score, e.method
FROM main._webdedup_edges AS e
WHERE e.a IN (SELECT id FROM members) OR e.b IN (SELECT id FROM members)
ORDER BY e.a, e.b;
