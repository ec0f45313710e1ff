-- How many groups have each size (groups of 2+ pages; one row a size).
SELECT dup_group_size AS size, count(*) AS groups
FROM {pages}
WHERE is_canonical = 1 AND dup_group_size > 1
GROUP BY dup_group_size
ORDER BY dup_group_size;
