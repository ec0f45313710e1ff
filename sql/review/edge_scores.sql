-- The stored near-duplicate edges (scores at or above the threshold only), by the content
-- hashes of their two pages.
SELECT pa.content_hash AS hash_a, pb.content_hash AS hash_b, e.score AS score
FROM main._webdedup_edges AS e
JOIN main._webdedup_prepared AS pa ON pa.id = e.a
JOIN main._webdedup_prepared AS pb ON pb.id = e.b
