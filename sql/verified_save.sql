-- The scores this run computed (not those it found in the cache), by the pair of the texts'
-- keys (smaller first; a page's content hash, or its own text's key: verified_region_keys.sql):
-- the verification cache of later runs (main._webdedup_verified).
-- Each pair's two pages are looked up in id order: run_scores is walked in (a, b) order for
-- the first, then the pairs are sorted by b for the second. Looked up in pair order, the
-- second page of each pair was a random read of run_prepared, which at ten million pages the
-- page cache no longer holds (about 1,900 4 KiB reads a second, docs/benchmarks.md).
-- Inserted in key order (sorted first): in pair order each row went to a random leaf of a
-- B-tree larger than the page cache at a million pages (10.1 s against 5.6 s for 935,717
-- pairs in a scratch timing).
DROP TABLE IF EXISTS temp.run_pair_hashes;
CREATE TEMP TABLE run_pair_hashes (a INTEGER NOT NULL, b INTEGER NOT NULL, score REAL NOT NULL,
                                   hash_a TEXT);
INSERT INTO temp.run_pair_hashes (a, b, score, hash_a)
SELECT s.a, s.b, s.score,
       coalesce((SELECT o.text_key FROM temp.run_own AS o WHERE o.id = s.a), pa.content_hash)
FROM temp.run_scores AS s
CROSS JOIN temp.run_prepared AS pa
WHERE NOT s.cached AND pa.id = s.a
ORDER BY s.b;  -- (rowids in b order: the walk below looks the second pages up in id order)
INSERT OR IGNORE INTO temp.run_verified (hash_a, hash_b, score)
SELECT min(k.hash_a, k.hash_b), max(k.hash_a, k.hash_b), k.score
FROM (SELECT t.a AS a, t.b AS b, t.score AS score, t.hash_a AS hash_a,
             coalesce((SELECT o.text_key FROM temp.run_own AS o WHERE o.id = t.b),
                      pb.content_hash) AS hash_b
      FROM temp.run_pair_hashes AS t
      CROSS JOIN temp.run_prepared AS pb
      WHERE pb.id = t.b) AS k
ORDER BY 1, 2, k.a, k.b;  -- (the first pair of a key pair, as before)
DROP TABLE temp.run_pair_hashes;
