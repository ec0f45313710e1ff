-- Phase 5 of a full run: the segments state is rebuilt from the run's tables.
DELETE FROM main._webdedup_page_segments;
INSERT INTO main._webdedup_page_segments (host, hash, id)
SELECT host, hash, id FROM temp.run_segments ORDER BY host, hash, id;
DELETE FROM main._webdedup_segments;
INSERT INTO main._webdedup_segments (host, hash, pages)
SELECT host, hash, pages FROM temp.run_segment_counts WHERE pages >= 2 ORDER BY host, hash;
