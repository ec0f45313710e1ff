-- `webdedup segments`: the repeated segments, most pages first, with one page that carries
-- each (the text is read from it: no segment text is stored).
SELECT s.host, s.hash, s.pages,
       (SELECT min(m.id) FROM _webdedup_page_segments AS m
        WHERE m.host = s.host AND m.hash = s.hash) AS sample_id
FROM _webdedup_segments AS s
WHERE s.pages >= :min_pages AND (:host IS NULL OR s.host = :host)
ORDER BY s.pages DESC, s.host, s.hash
LIMIT :limit;
