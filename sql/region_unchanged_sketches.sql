-- Sketches of the region's unchanged pages (loaded from the stored state).
SELECT id, sketch FROM temp.run_sketches
WHERE id NOT IN (SELECT id FROM temp.run_changed);
