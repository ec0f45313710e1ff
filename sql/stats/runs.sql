-- The last runs, newest first.
SELECT id, started_at, mode, method, pages, processed, wall_seconds, status
FROM _webdedup_runs ORDER BY id DESC LIMIT :limit;
