-- One row a successful run (inside the write-back transaction).
INSERT INTO _webdedup_runs (
    started_at, finished_at, mode, method, fingerprint, params, pages, processed, ignored,
    url_duplicates, exact_duplicates, near_duplicates, groups, renumbered, pruned,
    wall_seconds, timings, status)
VALUES (
    :started_at, :finished_at, :mode, :method, :fingerprint, :params, :pages, :processed,
    :ignored, :url_duplicates, :exact_duplicates, :near_duplicates, :groups, :renumbered,
    :pruned, :wall_seconds, :timings, 'ok');
