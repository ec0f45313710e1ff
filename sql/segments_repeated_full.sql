-- The repeated segments of the pages in temp.run_strip_ids, in a full run.
SELECT s.id, s.hash
FROM temp.run_segments AS s
JOIN temp.run_segment_counts AS c ON c.host = s.host AND c.hash = s.hash
WHERE c.pages >= :min_pages AND s.id IN (SELECT id FROM temp.run_strip_ids)
ORDER BY s.id, s.hash;
