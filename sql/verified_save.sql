-- The scores this run computed (not those it found in the cache), by content-hash pair
-- (smaller first): the verification cache of later runs (main._webdedup_verified).
INSERT OR IGNORE INTO temp.run_verified (hash_a, hash_b, score)
SELECT min(pa.content_hash, pb.content_hash), max(pa.content_hash, pb.content_hash), s.score
FROM temp.run_scores AS s
CROSS JOIN temp.run_prepared AS pa
CROSS JOIN temp.run_prepared AS pb
WHERE NOT s.cached AND pa.id = s.a AND pb.id = s.b
ORDER BY s.a, s.b;
