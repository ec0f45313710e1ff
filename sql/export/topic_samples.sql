-- The URL and title of a topic's sample pages (:ids, a JSON array of page ids).
SELECT p.{rowid} AS id,
       p.{url}   AS url,
       {title}   AS title
FROM {pages} AS p
WHERE p.{rowid} IN (SELECT value FROM json_each(:ids))
ORDER BY p.{rowid};
