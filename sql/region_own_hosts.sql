-- Own content: a changed page changes the lines its host repeats, so every page of the hosts
-- of the changed pages (as stored and as prepared now) joins the region.
INSERT OR IGNORE INTO temp.run_region (id)
SELECT id FROM main._webdedup_prepared
WHERE host IN (SELECT host FROM main._webdedup_prepared
               WHERE id IN (SELECT id FROM temp.run_changed)
               UNION SELECT host FROM temp.run_prepared);
