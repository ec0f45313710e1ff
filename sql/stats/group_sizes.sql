-- Histogram of group sizes (one row a bucket). {groups} is sql/group_kinds.sql: groups have
-- two or more pages, so unique pages are not in it (stats counts them apart).
SELECT CASE WHEN size = 2 THEN '2'
            WHEN size <= 5 THEN '3-5'
            WHEN size <= 10 THEN '6-10'
            WHEN size <= 100 THEN '11-100'
            ELSE '>100' END AS bucket,
       count(*) AS groups,
       sum(size) AS pages
FROM {groups}
GROUP BY bucket
ORDER BY min(size);
