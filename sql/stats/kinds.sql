-- Annotated pages by how they joined their group (NULL: canonical pages, singletons
-- included), from webdedup's groups state: the kinds with a group, counted in their key order
-- (main._webdedup_group_kinds); the canonicals, every page with a group
-- (main._webdedup_group_members) less those with a kind; the ignored pages, those without a
-- group (sql/assign.sql), every annotated page (main._webdedup_groups) less those with one.
-- No sort of the pages' rows. A count can be 0 (the caller leaves it out), or off while a
-- batched write is halfway through these tables (each is copied in batches of its own).
SELECT coalesce(kind, 'canonical') AS kind, pages
FROM (SELECT dup_kind AS kind, count(*) AS pages FROM main._webdedup_group_kinds
      GROUP BY dup_kind
      UNION ALL
      SELECT NULL, (SELECT count(*) FROM main._webdedup_group_members)
                   - (SELECT count(*) FROM main._webdedup_group_kinds)
      UNION ALL
      SELECT 'ignored', (SELECT count(*) FROM main._webdedup_groups)
                        - (SELECT count(*) FROM main._webdedup_group_members))
ORDER BY pages DESC;
