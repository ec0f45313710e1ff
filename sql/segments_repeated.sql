-- The repeated segments of the pages in temp.run_strip_ids, in an incremental run: a changed
-- page's segments are the run's, an unchanged page's the stored ones; a pair's count is the
-- run's when it recounted the pair, else the stored one.
WITH segs AS (
    SELECT id, host, hash FROM temp.run_segments
    WHERE id IN (SELECT id FROM temp.run_strip_ids)
    UNION ALL
    SELECT id, host, hash FROM main._webdedup_page_segments
    WHERE id IN (SELECT id FROM temp.run_strip_ids)
      AND id NOT IN (SELECT id FROM temp.run_segment_ids)
)
SELECT s.id, s.hash
FROM segs AS s
WHERE coalesce(
        (SELECT c.pages FROM temp.run_segment_counts AS c
         WHERE c.host = s.host AND c.hash = s.hash),
        (SELECT m.pages FROM main._webdedup_segments AS m
         WHERE m.host = s.host AND m.hash = s.hash),
        0) >= :min_pages
ORDER BY s.id, s.hash;
