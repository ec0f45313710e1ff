-- The last successful run: what produced the annotations being exported.
SELECT id, started_at, finished_at, mode, method, fingerprint, params, pages, processed,
       wall_seconds, status
FROM main._webdedup_runs
WHERE status = 'ok'
ORDER BY id DESC
LIMIT 1;
