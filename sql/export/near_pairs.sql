-- Verified near-duplicate edges with both pages' URL and title ({title_a}/{title_b}: a quoted
-- column of pa/pb, or NULL). :min_size keeps edges touching a group of at least that size.
SELECT e.a      AS i,
       e.b      AS j,
       e.score  AS score,
       e.method AS method,
       pa.{url} AS url_i,
       {title_a} AS title_i,
       pb.{url} AS url_j,
       {title_b} AS title_j
FROM main._webdedup_edges AS e
LEFT JOIN {pages} AS pa ON pa.{rowid} = e.a
LEFT JOIN {pages} AS pb ON pb.{rowid} = e.b
WHERE :min_size IS NULL
   OR max(coalesce(pa.dup_group_size, 0), coalesce(pb.dup_group_size, 0)) >= :min_size
ORDER BY e.a, e.b;
