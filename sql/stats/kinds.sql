-- Pages by how they joined their group (NULL: canonical pages, singletons included).
SELECT coalesce(dup_kind, 'canonical') AS kind, count(*) FROM {pages} GROUP BY 1 ORDER BY 2 DESC;
