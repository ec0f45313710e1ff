-- Each prepared page of an incremental run's region with a text (the candidates' pages are
-- among them) and the key the verification cache knows its text by: its own text's key
-- (temp.run_own; pipeline.own_content.own_key) when it is compared by its own text, else its
-- content hash (pipeline.phase4_near._from_cache).
SELECT p.id, coalesce((SELECT o.text_key FROM temp.run_own AS o WHERE o.id = p.id),
                      p.content_hash)
FROM temp.run_prepared AS p
WHERE p.content_hash IS NOT NULL;
