-- Pages sharing their normalized-text hash with at least one other processed page, by hash.
SELECT p.content_hash     AS content_hash,
       p.exact_group_size AS size,
       p.{rowid}          AS id
FROM {pages} AS p
WHERE p.exact_group_size > 1
  AND p.dup_kind IS NOT 'ignored'
  AND (:min_size IS NULL OR p.exact_group_size >= :min_size)
ORDER BY p.content_hash, p.{rowid};
