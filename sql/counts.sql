-- Whole-table counts in the one vocabulary of webdedup/store/counts.py. {groups} is
-- sql/group_kinds.sql (one row a group with its kind), filled in by that module. Every count
-- but the pages' reads main._webdedup_groups (each annotated page's group columns, by its
-- (dup_kind, dup_group) index), never the pages table and its texts. {pages_count} is how
-- many pages the table holds (an expression); those _webdedup_groups lacks were added since
-- the last run. A thin page is canonical of its own group (unique, or with its URL
-- duplicates): counted there, and once more on its own as thin.
SELECT p.*, g.*
FROM (SELECT {pages_count} AS pages,
             (SELECT count(*) FROM main._webdedup_groups
              WHERE dup_kind = 'ignored') AS ignored,
             (SELECT count(*) FROM main._webdedup_groups
              WHERE dup_kind IS NULL AND dup_group IS NOT NULL)
             + (SELECT count(*) FROM main._webdedup_groups
                WHERE dup_kind = 'thin') AS canonicals,
             (SELECT count(*) FROM main._webdedup_groups WHERE dup_kind = 'thin') AS thin,
             max({pages_count} - (SELECT count(*) FROM main._webdedup_groups), 0)
                 AS not_annotated,
             (SELECT count(*) FROM main._webdedup_groups
              WHERE dup_kind = 'url') AS url_duplicates,
             (SELECT count(*) FROM main._webdedup_groups
              WHERE dup_kind = 'exact') AS exact_duplicates,
             (SELECT count(*) FROM main._webdedup_groups
              WHERE dup_kind = 'near') AS near_duplicates
     ) AS p,
     (SELECT count(*)                          AS groups,
             coalesce(sum(kind = 'url'), 0)    AS url_groups,
             coalesce(sum(kind = 'exact'), 0)  AS exact_groups,
             coalesce(sum(kind = 'near'), 0)   AS near_groups,
             coalesce(sum(duplicates), 0)      AS duplicates
      FROM {groups}) AS g;
