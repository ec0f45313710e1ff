-- The report's thin pages: each with why it is thin (main._webdedup_thin, schema 9; an older
-- state has no such table and the report lists none). Not filtered: no thin page is in a
-- duplicate group of another page.
SELECT p.{rowid} AS id, p.{url} AS url, {title} AS title, t.reason AS reason
FROM main._webdedup_thin AS t
JOIN {pages} AS p ON p.{rowid} = t.id
WHERE p.dup_kind = 'thin'
ORDER BY p.{rowid};
