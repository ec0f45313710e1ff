-- One page a text (the lowest id among the non-ignored pages holding it), for the texts
-- named in temp.review_hashes, in the election order {election}. A text's pages are found
-- through {hashes} (_webdedup_content_hashes, or a TEMP copy for an older state:
-- _webdedup_prepared has no index on content_hash), the hash checked again on the page.
SELECT content_hash, id
FROM main._webdedup_prepared
WHERE id IN (SELECT min(p.id) FROM temp.review_hashes AS r
             JOIN {hashes} AS h ON h.content_hash = r.content_hash
             JOIN main._webdedup_prepared AS p ON p.id = h.id
             WHERE p.content_hash = h.content_hash AND p.ignored IS NULL
             GROUP BY h.content_hash)
ORDER BY {election};
