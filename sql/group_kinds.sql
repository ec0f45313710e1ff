-- THE definition of a duplicate group and of its kind (webdedup/store/counts.py says it in
-- words; every count and group list of db, stats, export reads it through that module).
-- One row a group: a dup_group with at least one duplicate (a page that joined it as 'url',
-- 'exact' or 'near'), so at least two pages with its canonical. A page alone in its
-- dup_group is unique, not a group. The group's kind is the loosest link among its
-- duplicates: 'near' if any is near, else 'exact' if any is exact, else 'url'.
-- Reads main._webdedup_group_kinds (the annotations' kinds, keyed by dup_kind and
-- dup_group). Used as a subquery: no trailing semicolon.
SELECT dup_group,
       CASE max(CASE dup_kind WHEN 'near' THEN 3 WHEN 'exact' THEN 2 ELSE 1 END)
            WHEN 3 THEN 'near' WHEN 2 THEN 'exact' ELSE 'url' END AS kind,
       count(*) AS duplicates,
       count(*) + 1 AS size
FROM main._webdedup_group_kinds
WHERE dup_kind IN ('url', 'exact', 'near')
GROUP BY dup_group
