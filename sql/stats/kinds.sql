-- Annotated pages by how they joined their group (NULL: canonical pages, singletons
-- included), from webdedup's groups state: the kinds with a group in their key order
-- (main._webdedup_group_kinds, counted as they come), the canonicals as every page with a
-- group (main._webdedup_group_members) less those with a kind, and the pages without a group
-- (ignored) from main._webdedup_groups. Grouping main._webdedup_groups by dup_kind itself
-- sorts every row in a TEMP B-tree (ten million pages: 1.77 s against 0.30 in key order,
-- docs/benchmarks.md).
SELECT coalesce(kind, 'canonical') AS kind, pages
FROM (SELECT dup_kind AS kind, count(*) AS pages FROM main._webdedup_group_kinds
      GROUP BY dup_kind
      UNION ALL
      SELECT NULL, (SELECT count(*) FROM main._webdedup_group_members)
                   - (SELECT count(*) FROM main._webdedup_group_kinds)
      UNION ALL
      SELECT dup_kind, count(*) FROM main._webdedup_groups
      WHERE dup_group IS NULL AND dup_kind IS NOT NULL
      GROUP BY dup_kind)
WHERE pages > 0
ORDER BY pages DESC;
