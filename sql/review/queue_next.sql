-- The first pair of the queue after position :after that no verdict has decided ({verdicts}
-- as in queue_decided.sql). Decided pairs sit mostly at the front: the scan skips as many
-- rows as there are verdicts, not the queue.
SELECT q.pos FROM temp.review_queue AS q
WHERE q.pos > :after
  AND NOT EXISTS (SELECT 1 FROM {verdicts} AS v
                  WHERE v.page_a = q.id AND (v.page_b = q.canonical OR v.kind = 'canonical'))
  AND NOT EXISTS (SELECT 1 FROM {verdicts} AS v
                  WHERE v.page_a = q.canonical AND v.page_b = q.id)
ORDER BY q.pos
LIMIT 1
