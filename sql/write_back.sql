-- Phase 5: annotate `pages` from the run's assignment. A row is only written when its rowid
-- still holds the URL that was prepared (a VACUUM may have renumbered rowids meanwhile).
UPDATE {pages}
SET canonical_url    = p.canonical_url,
    content_hash     = p.content_hash,
    exact_group_size = x.exact_group_size,
    dup_group        = a.dup_group,
    dup_group_size   = a.dup_group_size,
    canonical_id     = a.canonical_id,
    is_canonical     = a.is_canonical,
    dup_kind         = a.dup_kind,
    dup_score        = a.dup_score
FROM temp.run_assign AS a
JOIN temp.run_prepared AS p ON p.id = a.id
LEFT JOIN (SELECT content_hash, COUNT(*) AS exact_group_size
           FROM temp.run_prepared WHERE ignored IS NULL GROUP BY content_hash) AS x
       ON x.content_hash = p.content_hash AND p.ignored IS NULL
WHERE {pages}.{rowid} = a.id
  -- TEXT goes in as a BLOB: sqlite3 decodes a function's TEXT arguments strictly, and one
  -- invalid UTF-8 URL would fail the run; the function decodes it leniently, as reads do.
  AND webdedup_url_hash(CASE typeof({pages}.{url}) WHEN 'text' THEN CAST({pages}.{url} AS BLOB)
                        ELSE {pages}.{url} END) = p.url_hash;
