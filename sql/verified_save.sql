-- The scores this run computed (not those it found in the cache), by content-hash pair
-- (smaller first): the verification cache of later runs (main._webdedup_verified); not the
-- pairs with an own text (temp.run_own: verified_cached.sql).
-- Inserted in key order (sorted first): in pair order each row went to a random leaf of a
-- B-tree larger than the page cache at a million pages (10.1 s against 5.6 s for 935,717
-- pairs in a scratch timing).
INSERT OR IGNORE INTO temp.run_verified (hash_a, hash_b, score)
SELECT min(pa.content_hash, pb.content_hash), max(pa.content_hash, pb.content_hash), s.score
FROM temp.run_scores AS s
CROSS JOIN temp.run_prepared AS pa
CROSS JOIN temp.run_prepared AS pb
WHERE NOT s.cached AND pa.id = s.a AND pb.id = s.b
  AND s.a NOT IN (SELECT id FROM temp.run_own) AND s.b NOT IN (SELECT id FROM temp.run_own)
ORDER BY 1, 2, s.a, s.b;  -- (the first pair of a content-hash pair, as before)
