-- Every candidate pair the minhash method verified (above or below the threshold), between
-- texts some non-ignored page still holds: the cache may keep pairs of texts since gone.
SELECT v.hash_a, v.hash_b, v.score
FROM main._webdedup_verified AS v
WHERE EXISTS (SELECT 1 FROM main._webdedup_prepared AS p
              WHERE p.content_hash = v.hash_a AND p.ignored IS NULL)
  AND EXISTS (SELECT 1 FROM main._webdedup_prepared AS p
              WHERE p.content_hash = v.hash_b AND p.ignored IS NULL)
