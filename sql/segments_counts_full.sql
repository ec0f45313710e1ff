-- A full run counts every (host, segment) pair of the prepared pages. Pairs on one page only
-- are not kept: no threshold below 2 pages is allowed.
INSERT INTO temp.run_segment_counts (host, hash, pages, old_pages)
SELECT host, hash, count(*), 0 FROM temp.run_segments GROUP BY host, hash HAVING count(*) >= 2;
