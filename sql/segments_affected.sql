-- Unchanged pages that carry a (host, segment) pair whose repeated status this incremental
-- run changed (its page count crossed :min_pages): their stripped texts change.
SELECT DISTINCT m.id
FROM temp.run_segment_counts AS c
JOIN main._webdedup_page_segments AS m ON m.host = c.host AND m.hash = c.hash
WHERE (c.pages >= :min_pages) <> (c.old_pages >= :min_pages)
  AND m.id NOT IN (SELECT id FROM temp.run_segment_ids)
ORDER BY m.id;
