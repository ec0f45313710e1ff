-- The queue's pairs a verdict has decided ({verdicts}: the verdicts table, or an empty one):
-- a verdict on the pair (either way round), or the member chosen as canonical.
SELECT q.pos, q.dup_group FROM {verdicts} AS v
JOIN temp.review_queue AS q ON q.id = v.page_a
WHERE q.canonical = v.page_b OR v.kind = 'canonical'
UNION
SELECT q.pos, q.dup_group FROM {verdicts} AS v
JOIN temp.review_queue AS q ON q.id = v.page_b
WHERE q.canonical = v.page_a
