-- The candidate pairs of an incremental run whose texts an earlier run verified (the cache
-- is keyed by the content-hash pair, smaller first): their stored scores. Not the pairs with
-- an own text (temp.run_own): their score depends on the host's lines, not only on the texts.
INSERT INTO temp.run_scores (a, b, score, cached)
SELECT c.a, c.b, v.score, 1
FROM temp.run_candidates AS c
CROSS JOIN temp.run_prepared AS pa
CROSS JOIN temp.run_prepared AS pb
CROSS JOIN main._webdedup_verified AS v
WHERE pa.id = c.a AND pb.id = c.b
  AND v.hash_a = min(pa.content_hash, pb.content_hash)
  AND v.hash_b = max(pa.content_hash, pb.content_hash)
  AND c.a NOT IN (SELECT id FROM temp.run_own) AND c.b NOT IN (SELECT id FROM temp.run_own);
