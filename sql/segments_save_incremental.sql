-- Phase 5 of an incremental run: the changed pages' segments replace their stored ones, and
-- the pairs the run recounted get their new count (gone when under 2 pages).
DELETE FROM main._webdedup_page_segments WHERE id IN (SELECT id FROM temp.run_segment_ids);
INSERT INTO main._webdedup_page_segments (host, hash, id)
SELECT host, hash, id FROM temp.run_segments ORDER BY host, hash, id;
DELETE FROM main._webdedup_segments
WHERE (host, hash) IN (SELECT host, hash FROM temp.run_segment_counts);
INSERT INTO main._webdedup_segments (host, hash, pages)
SELECT host, hash, pages FROM temp.run_segment_counts WHERE pages >= 2 ORDER BY host, hash;
