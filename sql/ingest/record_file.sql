INSERT OR REPLACE INTO _webdedup_ingest_files
    (sha256, path, kind, ingested_at, pages, skipped, problems)
VALUES (?, ?, ?, ?, ?, ?, ?);
