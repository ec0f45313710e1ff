-- The report's thin pages: each with why it is thin (main._webdedup_thin, schema 9; an older
-- state has no such table and the report lists none). Not filtered: no thin page is in a
-- duplicate group of another page. The thin pages are few: the crawler's table is searched
-- for each of them (CROSS JOIN keeps that order; with the page's dup_kind to test, the
-- planner scanned every page instead: 1.4 s at a million pages, docs/benchmarks.md).
SELECT p.{rowid} AS id, p.{url} AS url, {title} AS title, t.reason AS reason
FROM main._webdedup_thin AS t
CROSS JOIN {pages} AS p
WHERE p.{rowid} = t.id AND p.dup_kind = 'thin'
ORDER BY t.id;
