-- The verified score of the texts of two pages (minhash's cache keeps hash_a < hash_b), for
-- a verdict kept without its score whose pair is no edge.
SELECT v.score
FROM main._webdedup_prepared AS pa
JOIN main._webdedup_prepared AS pb ON pb.id = :b
JOIN main._webdedup_verified AS v
  ON v.hash_a = min(pa.content_hash, pb.content_hash)
 AND v.hash_b = max(pa.content_hash, pb.content_hash)
WHERE pa.id = :a
