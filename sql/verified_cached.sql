-- The candidate pairs of an incremental run whose texts an earlier run verified: their
-- stored scores. The cache is keyed by the pair of the texts' keys, smaller first: a page's
-- content hash, or, for a page compared by its own text (temp.run_own), that text's key
-- (pipeline.own_content.own_key), which changes with the host's repeated lines.
-- The pairs' keys are sorted first and the cache looked up in key order: a nightly run's
-- candidates can be millions (the pages of a large host's template all meet), and in pair
-- order each was a random read of a cache larger than the page cache at ten million pages.
DROP TABLE IF EXISTS temp.run_candidate_keys;
CREATE TEMP TABLE run_candidate_keys (key_a TEXT NOT NULL, key_b TEXT NOT NULL,
                                      a INTEGER NOT NULL, b INTEGER NOT NULL);
INSERT INTO temp.run_candidate_keys (key_a, key_b, a, b)
SELECT min(k.key_a, k.key_b), max(k.key_a, k.key_b), k.a, k.b
FROM (SELECT c.a AS a, c.b AS b,
             coalesce((SELECT o.text_key FROM temp.run_own AS o WHERE o.id = c.a),
                      pa.content_hash) AS key_a,
             coalesce((SELECT o.text_key FROM temp.run_own AS o WHERE o.id = c.b),
                      pb.content_hash) AS key_b
      FROM temp.run_candidates AS c
      CROSS JOIN temp.run_prepared AS pa
      CROSS JOIN temp.run_prepared AS pb
      WHERE pa.id = c.a AND pb.id = c.b) AS k
ORDER BY 1, 2;  -- (rowids in key order: the walk below looks the cache up in that order)
INSERT INTO temp.run_scores (a, b, score, cached)
SELECT k.a, k.b, v.score, 1
FROM temp.run_candidate_keys AS k
CROSS JOIN main._webdedup_verified AS v
WHERE v.hash_a = k.key_a AND v.hash_b = k.key_b;
DROP TABLE temp.run_candidate_keys;
