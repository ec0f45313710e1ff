-- Verified near-duplicate edges with both pages' URL and title (temp.export_pairs:
-- export/near_pairs_rows.sql, in the order of b, so the second pages are looked up in id
-- order; then sorted by (a, b)). {title_b}: a quoted column of pb, or NULL. :min_size keeps
-- edges touching a group of at least that size.
SELECT t.a       AS i,
       t.b       AS j,
       t.score   AS score,
       t.method  AS method,
       t.url_a   AS url_i,
       t.title_a AS title_i,
       pb.{url}  AS url_j,
       {title_b} AS title_j
FROM temp.export_pairs AS t
LEFT JOIN {pages} AS pb ON pb.{rowid} = t.b
WHERE :min_size IS NULL
   OR max(coalesce(t.size_a, 0), coalesce(pb.dup_group_size, 0)) >= :min_size
ORDER BY t.a, t.b;
