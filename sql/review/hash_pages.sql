-- One page a text (the lowest id among the non-ignored pages holding it), for the texts
-- named in temp.review_hashes, in the election order {election}.
SELECT content_hash, id
FROM main._webdedup_prepared
WHERE id IN (SELECT min(p.id) FROM main._webdedup_prepared AS p
             JOIN temp.review_hashes AS h ON h.content_hash = p.content_hash
             WHERE p.ignored IS NULL GROUP BY p.content_hash)
ORDER BY {election};
