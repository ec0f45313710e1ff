-- Deduplicator(...)(db): the winners whose URL column, {domain} or {wayback} (a column of
-- {pages}, or NULL when it has none) differ from what that API's call leaves there, with
-- what the run read (the URL's hash, to skip a row the crawler changed since).
SELECT p.{rowid}, p.{url}, s.url_hash, s.canonical_url, s.host, {domain}, {wayback}
FROM {pages} AS p
JOIN main._webdedup_prepared AS s ON s.id = p.{rowid}
WHERE s.canonical_url IS NOT NULL
ORDER BY p.{rowid};
