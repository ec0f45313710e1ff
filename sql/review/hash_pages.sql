-- One page a text (the lowest id among the non-ignored pages holding it), for the texts
-- named in temp.review_hashes, in the election order {election}. A text's pages are found
-- through _webdedup_content_hashes (_webdedup_prepared has no index on content_hash).
SELECT content_hash, id
FROM main._webdedup_prepared
WHERE id IN (SELECT min(p.id) FROM temp.review_hashes AS r
             JOIN main._webdedup_content_hashes AS h ON h.content_hash = r.content_hash
             JOIN main._webdedup_prepared AS p ON p.id = h.id
             WHERE p.ignored IS NULL GROUP BY h.content_hash)
ORDER BY {election};
