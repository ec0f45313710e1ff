-- The verified near-duplicate edges with the first page's URL, title and group size, into
-- temp.export_pairs in the order of the second page (b), for export/near_pairs.sql to look
-- the second page up in id order. The edges are read in their key order (a, b), so the first
-- pages too are looked up in id order: read in (a, b) order, each second page was a look-up at
-- a random place of the crawler's table (at ten million pages, larger than the page cache).
-- {title_a}: a quoted column of pa, or NULL.
DROP TABLE IF EXISTS temp.export_pairs_a;
CREATE TEMP TABLE export_pairs_a (a, b, score, method, url_a, title_a, size_a);
INSERT INTO temp.export_pairs_a
SELECT e.a, e.b, e.score, e.method, pa.{url}, {title_a}, pa.dup_group_size
FROM main._webdedup_edges AS e
LEFT JOIN {pages} AS pa ON pa.{rowid} = e.a
ORDER BY e.a, e.b;  -- (the edges' key order: no sort, and not the index on b)
DROP TABLE IF EXISTS temp.export_pairs;
CREATE TEMP TABLE export_pairs (a, b, score, method, url_a, title_a, size_a);
INSERT INTO temp.export_pairs
SELECT * FROM temp.export_pairs_a ORDER BY b;
DROP TABLE temp.export_pairs_a;
