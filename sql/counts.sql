-- Whole-table counts in the one vocabulary of webdedup/store/counts.py. {groups} is
-- sql/group_kinds.sql (one row a group with its kind), filled in by that module. Every
-- count reads only the (dup_kind, dup_group) index. A thin page is canonical of its own group
-- (unique, or with its URL duplicates): counted there, and once more on its own as thin.
SELECT p.*, g.*
FROM (SELECT (SELECT count(*) FROM {pages})                            AS pages,
             (SELECT count(*) FROM {pages} WHERE dup_kind = 'ignored') AS ignored,
             (SELECT count(*) FROM {pages}
              WHERE dup_kind IS NULL AND dup_group IS NOT NULL)
             + (SELECT count(*) FROM {pages} WHERE dup_kind = 'thin') AS canonicals,
             (SELECT count(*) FROM {pages} WHERE dup_kind = 'thin')    AS thin,
             (SELECT count(*) FROM {pages}
              WHERE dup_kind IS NULL AND dup_group IS NULL)            AS not_annotated,
             (SELECT count(*) FROM {pages} WHERE dup_kind = 'url')     AS url_duplicates,
             (SELECT count(*) FROM {pages} WHERE dup_kind = 'exact')   AS exact_duplicates,
             (SELECT count(*) FROM {pages} WHERE dup_kind = 'near')    AS near_duplicates
     ) AS p,
     (SELECT count(*)                          AS groups,
             coalesce(sum(kind = 'url'), 0)    AS url_groups,
             coalesce(sum(kind = 'exact'), 0)  AS exact_groups,
             coalesce(sum(kind = 'near'), 0)   AS near_groups,
             coalesce(sum(duplicates), 0)      AS duplicates
      FROM {groups}) AS g;
