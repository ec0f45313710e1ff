-- An incremental run recounts the pairs its changed pages (temp.run_segment_ids) had before
-- (main._webdedup_page_segments) or have now (temp.run_segments): the stored pages of the pair
-- that did not change, plus the changed pages that carry it now. Every other pair's count is
-- unchanged, so the stored counts stay those of a full run.
INSERT INTO temp.run_segment_counts (host, hash, pages, old_pages)
SELECT t.host, t.hash,
       (SELECT count(*) FROM main._webdedup_page_segments AS m
        WHERE m.host = t.host AND m.hash = t.hash
          AND m.id NOT IN (SELECT id FROM temp.run_segment_ids))
       + (SELECT count(*) FROM temp.run_segments AS r WHERE r.host = t.host AND r.hash = t.hash),
       coalesce((SELECT s.pages FROM main._webdedup_segments AS s
                 WHERE s.host = t.host AND s.hash = t.hash), 0)
FROM (SELECT host, hash FROM temp.run_segments
      UNION
      SELECT host, hash FROM main._webdedup_page_segments
      WHERE id IN (SELECT id FROM temp.run_segment_ids)) AS t;
