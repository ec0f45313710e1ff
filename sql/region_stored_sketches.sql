-- The stored sketches of every region page (their stored band rows are replaced).
SELECT id, sketch FROM main._webdedup_sketches
WHERE id IN (SELECT id FROM temp.run_region);
