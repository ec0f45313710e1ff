-- Every candidate pair the minhash method verified (above or below the threshold), between
-- texts some non-ignored page still holds: the cache may keep pairs of texts since gone.
-- A text's pages are found through {hashes} (_webdedup_content_hashes, keyed by the text;
-- a TEMP copy for an older state): _webdedup_prepared has no index on content_hash, and a
-- scan of it for each pair took hours at a million pages. The join checks the hash again:
-- a state relabelled to an older schema may hold stale lookup rows.
SELECT v.hash_a, v.hash_b, v.score
FROM main._webdedup_verified AS v
WHERE EXISTS (SELECT 1 FROM {hashes} AS h
              JOIN main._webdedup_prepared AS p ON p.id = h.id
              WHERE h.content_hash = v.hash_a AND p.content_hash = h.content_hash
                AND p.ignored IS NULL)
  AND EXISTS (SELECT 1 FROM {hashes} AS h
              JOIN main._webdedup_prepared AS p ON p.id = h.id
              WHERE h.content_hash = v.hash_b AND p.content_hash = h.content_hash
                AND p.ignored IS NULL)
