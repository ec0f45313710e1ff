-- Two pages of the queue (a canonical and a member), with their texts, hosts and the
-- columns group_pages.sql reads. {title}, {text}, {html} as in export/review_groups.sql.
SELECT p.{rowid}       AS id,
       p.{url}         AS url,
       {title}         AS title,
       p.canonical_url AS canonical_url,
       p.dup_kind      AS dup_kind,
       p.dup_score     AS dup_score,
       p.canonical_id  AS canonical_id,
       w.host          AS host,
       {text}          AS text,
       {html}          AS html
FROM {pages} AS p
LEFT JOIN main._webdedup_prepared AS w ON w.id = p.{rowid}
WHERE p.{rowid} IN (:canonical, :member)
