-- The candidate pairs of an incremental run whose texts an earlier run verified: their
-- stored scores. The cache is keyed by the pair of the texts' keys, smaller first: a page's
-- content hash, or, for a page compared by its own text (temp.run_own), that text's key
-- (pipeline.own_content.own_key), which changes with the host's repeated lines.
INSERT INTO temp.run_scores (a, b, score, cached)
SELECT k.a, k.b, v.score, 1
FROM (SELECT c.a AS a, c.b AS b,
             coalesce((SELECT o.text_key FROM temp.run_own AS o WHERE o.id = c.a),
                      pa.content_hash) AS key_a,
             coalesce((SELECT o.text_key FROM temp.run_own AS o WHERE o.id = c.b),
                      pb.content_hash) AS key_b
      FROM temp.run_candidates AS c
      CROSS JOIN temp.run_prepared AS pa
      CROSS JOIN temp.run_prepared AS pb
      WHERE pa.id = c.a AND pb.id = c.b) AS k
CROSS JOIN main._webdedup_verified AS v
WHERE v.hash_a = min(k.key_a, k.key_b) AND v.hash_b = max(k.key_a, k.key_b);
