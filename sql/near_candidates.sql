-- Candidate pairs: texts of different exact groups sharing at least one LSH band key.
-- Most band keys belong to one page only; dropping those first halves the self-join.
WITH shared AS (
    SELECT band_key FROM temp.run_bands GROUP BY band_key HAVING count(*) > 1
),
nb AS (
    SELECT b.band_key, b.id, n.component
    FROM temp.run_bands AS b
    JOIN shared USING (band_key)
    JOIN temp.run_near_nodes AS n ON n.id = b.id
)
SELECT DISTINCT x.id, y.id
FROM nb AS x
JOIN nb AS y ON y.band_key = x.band_key AND y.id > x.id AND y.component <> x.component
ORDER BY x.id, y.id;
