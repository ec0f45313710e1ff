-- The page id of a URL as stored by the crawler (lowest id when the URL is there twice).
SELECT {rowid} FROM {pages} WHERE {url} = :url ORDER BY {rowid} LIMIT 1;
