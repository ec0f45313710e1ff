-- run_on_list: each page's annotations and why it was ignored (RESULT_KEYS order).
SELECT p.rowid, p.canonical_url, p.content_hash, p.exact_group_size, p.dup_group,
       p.dup_group_size, p.canonical_id, p.is_canonical, p.dup_kind, p.dup_score, w.ignored,
       w.lang
FROM pages AS p LEFT JOIN _webdedup_prepared AS w ON w.id = p.rowid;
