-- The page a revisit record refers to: by record id, else URL and date, else payload digest
-- (the same URL first). ?1 record id, ?2 URL, ?3 date, ?4 digest, ?5 the revisit's own URL.
SELECT i.page_id
FROM _webdedup_ingested AS i
JOIN {table} AS p ON p.{rowid} = i.page_id
WHERE i.record_key = ?1
   OR (i.url = ?2 AND i.captured = ?3)
   OR (?4 IS NOT NULL AND i.payload_digest = ?4)
ORDER BY i.record_key = ?1 DESC,
         (i.url = ?2 AND i.captured = ?3) DESC,
         i.url = ?5 DESC,
         i.page_id DESC
LIMIT 1;
