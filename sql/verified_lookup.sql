-- The stored similarity of two texts, verified by an earlier run.
SELECT score FROM main._webdedup_verified WHERE hash_a = ? AND hash_b = ?;
