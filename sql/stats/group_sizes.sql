-- Histogram of group sizes (one row a group).
SELECT CASE WHEN size = 1 THEN '1'
            WHEN size = 2 THEN '2'
            WHEN size <= 5 THEN '3-5'
            WHEN size <= 10 THEN '6-10'
            WHEN size <= 100 THEN '11-100'
            ELSE '>100' END AS bucket,
       count(*) AS groups,
       sum(size) AS pages
FROM (SELECT dup_group, count(*) AS size FROM {pages}
      WHERE dup_group IS NOT NULL GROUP BY dup_group)
GROUP BY bucket
ORDER BY min(size);
