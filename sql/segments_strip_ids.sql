-- The prepared pages that carry a repeated segment (every pair they carry was counted).
INSERT OR IGNORE INTO temp.run_strip_ids (id)
SELECT DISTINCT s.id
FROM temp.run_segments AS s
JOIN temp.run_segment_counts AS c ON c.host = s.host AND c.hash = s.hash
WHERE c.pages >= :min_pages;
