-- Annotated pages by how they joined their group (NULL: canonical pages, singletons
-- included), from each annotated page's group columns (main._webdedup_groups). Grouped by
-- dup_kind itself, the rows come in the order of its (dup_kind, dup_group) index, counted
-- as they come; grouped by coalesce(dup_kind, ...), SQLite sorted every row in a TEMP
-- B-tree first (ten million pages: 1.77 s against 0.30, docs/benchmarks.md).
SELECT coalesce(kind, 'canonical') AS kind, pages
FROM (SELECT dup_kind AS kind, count(*) AS pages FROM main._webdedup_groups GROUP BY dup_kind)
ORDER BY pages DESC;
