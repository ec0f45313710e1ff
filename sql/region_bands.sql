-- The new near-duplicate candidates of the changed pages: every stored page sharing one of
-- their LSH band keys. CROSS JOIN keeps the few changed pages' bands as the outer loop (the
-- planner has no statistics on TEMP tables and would scan all stored bands otherwise).
INSERT OR IGNORE INTO temp.run_region (id)
SELECT DISTINCT m.id
FROM temp.run_bands AS b
CROSS JOIN main._webdedup_bands AS m
WHERE m.band_key = b.band_key;
