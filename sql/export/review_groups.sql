-- The largest duplicate groups (size > 1), largest first, with every member's text: the HTML
-- review page folds consecutive rows of one dup_group into one group, canonical first.
-- {title}, {text} and {html} are quoted columns of p or NULL ({html} only where the text is
-- empty); {lang} is pr.lang (NULL before schema 6). :max_groups caps the groups; :min_size
-- and :kinds filter as in documents.sql.
-- {groups} is sql/group_kinds.sql: the groups and their kinds (webdedup/store/counts.py).
WITH top AS (
    SELECT g.dup_group AS dup_group, g.size AS size, g.kind AS kind
    FROM {groups} AS g
    WHERE (:min_size IS NULL OR g.size >= :min_size)
      AND (:kinds IS NULL OR g.dup_group IN (
            SELECT k.dup_group FROM main._webdedup_group_kinds AS k
            WHERE k.dup_kind IN (SELECT value FROM json_each(:kinds))))
    ORDER BY g.size DESC, g.dup_group
    LIMIT :max_groups
)
SELECT p.dup_group     AS dup_group,
       (SELECT t.size FROM top AS t WHERE t.dup_group = p.dup_group) AS size,
       (SELECT t.kind FROM top AS t WHERE t.dup_group = p.dup_group) AS group_kind,
       p.{rowid}       AS id,
       p.{url}         AS url,
       {title}         AS title,
       p.canonical_url AS canonical_url,
       {content_hash}  AS content_hash,
       p.is_canonical  AS is_canonical,
       p.dup_kind      AS dup_kind,
       p.dup_score     AS dup_score,
       e.score         AS edge_score,
       e.method        AS edge_method,
       {lang}          AS lang,
       {text}          AS text,
       {html}          AS html
FROM main._webdedup_group_members AS a
JOIN {pages} AS p ON p.{rowid} = a.id AND p.dup_group = a.dup_group  -- a row renumbered by VACUUM carries another group: left out
LEFT JOIN main._webdedup_prepared AS pr ON pr.id = p.{rowid}
LEFT JOIN main._webdedup_edges AS e
       ON e.a = min(p.{rowid}, p.canonical_id) AND e.b = max(p.{rowid}, p.canonical_id)
-- one pass over the pages, each looked up among the top groups (an IN list has an index;
-- a join to top was planned as one pass over the pages a group); size and kind are looked
-- up for the rows kept only
WHERE a.dup_group IN (SELECT dup_group FROM top)
  AND (:kinds IS NULL
       OR p.is_canonical = 1
       OR p.dup_kind IN (SELECT value FROM json_each(:kinds)))
ORDER BY size DESC, p.dup_group, p.is_canonical DESC, p.{rowid};
