-- How many groups have each size (one row a size). {groups} is sql/group_kinds.sql: the one
-- definition of a group (webdedup/store/counts.py).
SELECT size, count(*) AS groups
FROM {groups}
GROUP BY size
ORDER BY size;
