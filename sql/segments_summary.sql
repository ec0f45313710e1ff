-- How many segments are repeated (on :min_pages pages or more), on how many hosts.
SELECT count(*), count(DISTINCT host) FROM _webdedup_segments
WHERE pages >= :min_pages AND (:host IS NULL OR host = :host);
