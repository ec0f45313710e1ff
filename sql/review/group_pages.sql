-- The pages of one duplicate group, canonical first, with their texts, the verified edge to
-- their canonical (when there is one) and their prepared election values. {title}, {text},
-- {html} as in export/review_groups.sql. The group's pages are found by group in
-- main._webdedup_group_members (keyed by dup_group, is_canonical, id).
SELECT p.{rowid}       AS id,
       p.{url}         AS url,
       {title}         AS title,
       p.canonical_url AS canonical_url,
       {content_hash}  AS content_hash,
       p.canonical_id  AS canonical_id,
       p.is_canonical  AS is_canonical,
       p.dup_kind      AS dup_kind,
       p.dup_score     AS dup_score,
       e.score         AS edge_score,
       e.method        AS edge_method,
       w.dt            AS dt,
       w.crawled_ts    AS crawled_ts,
       w.text_len      AS text_len,
       w.is_https      AS is_https,
       w.url_len       AS url_len,
       w.is_external   AS is_external,
       w.host          AS host,
       {text}          AS text,
       {html}          AS html
FROM main._webdedup_group_members AS m
JOIN {pages} AS p ON p.{rowid} = m.id
LEFT JOIN main._webdedup_prepared AS w ON w.id = m.id
LEFT JOIN main._webdedup_edges AS e
       ON e.a = min(p.{rowid}, p.canonical_id) AND e.b = max(p.{rowid}, p.canonical_id)
WHERE m.dup_group = :group
ORDER BY p.is_canonical DESC, p.{rowid}
LIMIT :limit;
