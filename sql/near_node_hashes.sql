-- The content hash of each node of phase 4 (the verification cache is keyed by them).
SELECT id, content_hash FROM temp.run_prepared
WHERE id IN (SELECT id FROM temp.run_near_nodes);
