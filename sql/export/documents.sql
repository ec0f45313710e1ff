-- The export's documents (JSON) and rows (CSV): one page a row, in id order, with its
-- annotations. {title} and {text} are a quoted column of p, or NULL when the table has none;
-- {lang} is pr.lang, or NULL for state written before schema 5.
-- Filters are bound parameters: :min_size (NULL = off) keeps pages whose duplicate group has
-- at least that many members; :kinds (NULL = off, else a JSON array of 'url'/'exact'/'near')
-- keeps the pages that joined their group that way, plus the canonicals of those groups.
SELECT p.{rowid}          AS id,
       p.{url}            AS url,
       {title}            AS title,
       p.canonical_url    AS canonical_url,
       pr.text_len        AS len_clean,
       {content_hash}     AS content_hash,
       p.exact_group_size AS exact_group_size,
       p.dup_group        AS dup_group,
       p.dup_group_size   AS dup_group_size,
       p.canonical_id     AS canonical_id,
       p.is_canonical     AS is_canonical,
       p.dup_kind         AS dup_kind,
       p.dup_score        AS dup_score,
       {lang}             AS lang,
       {text}             AS text
FROM {pages} AS p
LEFT JOIN main._webdedup_prepared AS pr ON pr.id = p.{rowid}
WHERE (:min_size IS NULL OR p.dup_group_size >= :min_size)
  AND (:kinds IS NULL OR (
        p.dup_group IN (SELECT k.dup_group FROM main._webdedup_group_kinds AS k
                        WHERE k.dup_kind IN (SELECT value FROM json_each(:kinds)))
        AND (p.is_canonical = 1 OR p.dup_kind IN (SELECT value FROM json_each(:kinds)))))
ORDER BY p.{rowid};
