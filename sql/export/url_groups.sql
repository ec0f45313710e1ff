-- Processed pages whose canonical URL is shared by at least one other processed page.
SELECT canonical_url, size, id
FROM (SELECT p.canonical_url AS canonical_url,
             count(*) OVER (PARTITION BY p.canonical_url) AS size,
             p.{rowid} AS id
      FROM {pages} AS p
      WHERE p.canonical_url IS NOT NULL AND p.dup_kind IS NOT 'ignored')
WHERE size > 1 AND (:min_size IS NULL OR size >= :min_size)
ORDER BY canonical_url, id;
