-- The report's documents (export/documents.sql) as JSON, one object a page, made by SQLite
-- (webdedup.output.json_report: a Python dict and json.dumps a page cost most of a large
-- report's time). The fields in DOCUMENT_FIELDS' order; a BLOB cell as its text (JSON holds no
-- BLOB; its invalid UTF-8 is replaced when read, as the Python path decodes it); is_canonical
-- as a boolean. {documents}: export/documents.sql, filled.
SELECT json_object(
    'id', id,
    'url', CASE WHEN typeof(url) = 'blob' THEN CAST(url AS TEXT) ELSE url END,
    'title', CASE WHEN typeof(title) = 'blob' THEN CAST(title AS TEXT) ELSE title END,
    'canonical_url', CASE WHEN typeof(canonical_url) = 'blob' THEN CAST(canonical_url AS TEXT)
                          ELSE canonical_url END,
    'len_clean', len_clean,
    'content_hash', CASE WHEN typeof(content_hash) = 'blob' THEN CAST(content_hash AS TEXT)
                         ELSE content_hash END,
    'exact_group_size', exact_group_size,
    'dup_group', dup_group,
    'dup_group_size', dup_group_size,
    'canonical_id', canonical_id,
    'is_canonical', CASE WHEN is_canonical IS NULL THEN NULL
                         WHEN is_canonical THEN json('true') ELSE json('false') END,
    'dup_kind', CASE WHEN typeof(dup_kind) = 'blob' THEN CAST(dup_kind AS TEXT) ELSE dup_kind END,
    'dup_score', dup_score,
    'lang', CASE WHEN typeof(lang) = 'blob' THEN CAST(lang AS TEXT) ELSE lang END
)
FROM ({documents})
ORDER BY id;
