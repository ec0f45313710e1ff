-- The largest duplicate groups (size > 1), largest first, with every member's text: the HTML
-- review page folds consecutive rows of one dup_group into one group, canonical first.
-- {title}, {text} and {html} are quoted columns of p or NULL ({html} only where the text is
-- empty); {lang} is pr.lang (NULL before schema 5). :max_groups caps the groups; :min_size and :kinds filter as in documents.sql.
WITH top AS (
    SELECT c.dup_group AS dup_group, c.dup_group_size AS size
    FROM {pages} AS c
    WHERE c.is_canonical = 1
      AND c.dup_group_size > 1
      AND (:min_size IS NULL OR c.dup_group_size >= :min_size)
      AND (:kinds IS NULL OR c.dup_group IN (
            SELECT k.dup_group FROM {pages} AS k
            WHERE k.dup_kind IN (SELECT value FROM json_each(:kinds))))
    ORDER BY c.dup_group_size DESC, c.dup_group
    LIMIT :max_groups
)
SELECT t.dup_group     AS dup_group,
       t.size          AS size,
       p.{rowid}       AS id,
       p.{url}         AS url,
       {title}         AS title,
       p.canonical_url AS canonical_url,
       p.content_hash  AS content_hash,
       p.is_canonical  AS is_canonical,
       p.dup_kind      AS dup_kind,
       p.dup_score     AS dup_score,
       e.score         AS edge_score,
       e.method        AS edge_method,
       {lang}          AS lang,
       {text}          AS text,
       {html}          AS html
FROM top AS t
JOIN {pages} AS p ON p.dup_group = t.dup_group
LEFT JOIN main._webdedup_prepared AS pr ON pr.id = p.{rowid}
LEFT JOIN main._webdedup_edges AS e
       ON e.a = min(p.{rowid}, p.canonical_id) AND e.b = max(p.{rowid}, p.canonical_id)
WHERE :kinds IS NULL
   OR p.is_canonical = 1
   OR p.dup_kind IN (SELECT value FROM json_each(:kinds))
ORDER BY t.size DESC, t.dup_group, p.is_canonical DESC, p.{rowid};
