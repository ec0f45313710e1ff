-- The verification cache's pairs among the region's text keys (temp.run_keys: each key and
-- its place in their order), as those places (the smaller first, as the cache keys them) and
-- the scores, comma-separated (pipeline.phase4_near._from_cache). The keys are walked in
-- order, and each key's cached pairs are one range of the cache's key: one pass through the
-- parts of the cache the region needs, in the cache's order.
SELECT group_concat(ka.code), group_concat(kb.code), group_concat(v.score)
FROM temp.run_keys AS ka
CROSS JOIN main._webdedup_verified AS v
CROSS JOIN temp.run_keys AS kb
WHERE v.hash_a = ka.key AND kb.key = v.hash_b;
