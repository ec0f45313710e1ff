-- One page with its annotations and text (for explain). {title}/{text}/{html} as in
-- review_groups.sql.
SELECT p.{rowid}          AS id,
       p.{url}            AS url,
       {title}            AS title,
       p.canonical_url    AS canonical_url,
       {content_hash}     AS content_hash,
       p.exact_group_size AS exact_group_size,
       p.dup_group        AS dup_group,
       p.dup_group_size   AS dup_group_size,
       p.canonical_id     AS canonical_id,
       p.is_canonical     AS is_canonical,
       p.dup_kind         AS dup_kind,
       p.dup_score        AS dup_score,
       {text}             AS text,
       {html}             AS html
FROM {pages} AS p
WHERE p.{rowid} = :id;
