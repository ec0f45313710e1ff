-- The page id of a canonical URL, the canonical page of that URL first.
SELECT {rowid} FROM {pages} WHERE canonical_url = :canonical_url
ORDER BY is_canonical DESC, {rowid} LIMIT 1;
