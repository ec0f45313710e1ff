-- Annotated pages by how they joined their group (NULL: canonical pages, singletons
-- included), from each annotated page's group columns (main._webdedup_groups).
SELECT coalesce(dup_kind, 'canonical') AS kind, count(*) FROM main._webdedup_groups
GROUP BY 1 ORDER BY 2 DESC;
