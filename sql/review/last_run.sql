-- The last successful run (id, start time): the review app's index is that run's.
SELECT id, started_at FROM _webdedup_runs WHERE status = 'ok' ORDER BY id DESC LIMIT 1
