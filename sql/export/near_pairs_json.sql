-- The report's near-duplicate pairs (export/near_pairs.sql) as JSON, one object a pair, made
-- by SQLite (webdedup.output.json_report: a Python dict and json.dumps a pair were two thirds
-- of the section's time). The fields in the order of near_pairs.sql's columns; a BLOB cell as
-- its text (invalid UTF-8 is replaced when read, as the Python path decoded it). A REAL is
-- written with 15 significant digits (json_object): the scores are stored rounded to 6
-- decimals, so they read back as they are stored.
-- {pairs}: export/near_pairs.sql, filled.
SELECT json_object(
    'i', i,
    'j', j,
    'score', score,
    'method', CASE WHEN typeof(method) = 'blob' THEN CAST(method AS TEXT) ELSE method END,
    'url_i', CASE WHEN typeof(url_i) = 'blob' THEN CAST(url_i AS TEXT) ELSE url_i END,
    'title_i', CASE WHEN typeof(title_i) = 'blob' THEN CAST(title_i AS TEXT) ELSE title_i END,
    'url_j', CASE WHEN typeof(url_j) = 'blob' THEN CAST(url_j AS TEXT) ELSE url_j END,
    'title_j', CASE WHEN typeof(title_j) = 'blob' THEN CAST(title_j AS TEXT) ELSE title_j END
)
FROM ({pairs})
ORDER BY i, j;
