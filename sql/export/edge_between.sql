-- The stored verified edge between two pages, if the last run made one.
SELECT score, method FROM main._webdedup_edges
WHERE (a = :a AND b = :b) OR (a = :b AND b = :a);
