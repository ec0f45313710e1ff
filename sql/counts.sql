-- Whole-table counts in the one vocabulary of webdedup/store/counts.py. Every count but the
-- pages' reads webdedup's groups state, never the pages table and its texts: the kinds
-- and their groups in main._webdedup_group_kinds (keyed by dup_kind, dup_group), the pages
-- with a group in main._webdedup_group_members, all of them in main._webdedup_groups (the
-- ignored pages are those without a group: sql/assign.sql). {pages_count} is how many pages
-- the table holds (an expression); those _webdedup_groups lacks were added since the last
-- run. A thin page is canonical of its own group (unique, or with its URL duplicates):
-- counted there, and once more on its own as thin.
-- The groups by kind are those of sql/group_kinds.sql (THE definition: a group's kind is the
-- loosest link among its duplicates), counted kind by kind down that table in dup_group
-- order: a near group has a near duplicate, an exact group an exact one and no near one, a
-- URL group a URL one and neither. (A duplicate always has a group, sql/assign.sql: the
-- definition would count NULL as one group, count(DISTINCT) not at all.) Grouping every
-- duplicate by dup_group instead sorts them all in a TEMP B-tree: the counts took 0.42 s of
-- CPU so at a million pages, 0.23 s this way (docs/benchmarks.md).
-- tests/store/test_counts_sql.py holds the two to the same numbers.
SELECT p.*,
       g.near_groups + g.exact_groups + g.url_groups AS groups,
       g.*,
       p.url_duplicates + p.exact_duplicates + p.near_duplicates AS duplicates
FROM (SELECT {pages_count} AS pages,
             (SELECT count(*) FROM main._webdedup_groups)
             - (SELECT count(*) FROM main._webdedup_group_members) AS ignored,
             -- (with a group and no kind: every page with a group less those with a kind)
             (SELECT count(*) FROM main._webdedup_group_members)
             - (SELECT count(*) FROM main._webdedup_group_kinds)
             + (SELECT count(*) FROM main._webdedup_group_kinds
                WHERE dup_kind = 'thin') AS canonicals,
             (SELECT count(*) FROM main._webdedup_group_kinds WHERE dup_kind = 'thin') AS thin,
             max({pages_count} - (SELECT count(*) FROM main._webdedup_groups), 0)
                 AS not_annotated,
             (SELECT count(*) FROM main._webdedup_group_kinds
              WHERE dup_kind = 'url') AS url_duplicates,
             (SELECT count(*) FROM main._webdedup_group_kinds
              WHERE dup_kind = 'exact') AS exact_duplicates,
             (SELECT count(*) FROM main._webdedup_group_kinds
              WHERE dup_kind = 'near') AS near_duplicates
     ) AS p,
     (SELECT (SELECT count(DISTINCT dup_group) FROM main._webdedup_group_kinds
              WHERE dup_kind = 'near') AS near_groups,
             (SELECT count(DISTINCT g.dup_group) FROM main._webdedup_group_kinds AS g
              WHERE g.dup_kind = 'exact'
                AND NOT EXISTS (SELECT 1 FROM main._webdedup_group_kinds AS h
                                WHERE h.dup_kind = 'near' AND h.dup_group = g.dup_group))
                 AS exact_groups,
             (SELECT count(DISTINCT g.dup_group) FROM main._webdedup_group_kinds AS g
              WHERE g.dup_kind = 'url'
                AND NOT EXISTS (SELECT 1 FROM main._webdedup_group_kinds AS h
                                WHERE h.dup_kind IN ('near', 'exact')
                                  AND h.dup_group = g.dup_group)) AS url_groups
     ) AS g;
