-- webdedup ingest state: which files and records went in, so that ingesting twice adds nothing,
-- and where revisit records find the response they refer to.

-- One row a record that became a page.
CREATE TABLE IF NOT EXISTS _webdedup_ingested (
    record_key     TEXT PRIMARY KEY,  -- WARC-Record-ID, else '<file sha256>:<offset>'
    source_sha256  TEXT,              -- sha256 of the file it came from
    source_file    TEXT,
    record_offset  INTEGER,
    page_id        INTEGER,           -- rowid of the page in the pages table
    url            TEXT,
    captured       TEXT,              -- WARC-Date (revisits refer to it)
    payload_digest TEXT
);
CREATE INDEX IF NOT EXISTS _webdedup_ingested_digest ON _webdedup_ingested(payload_digest);
CREATE INDEX IF NOT EXISTS _webdedup_ingested_url ON _webdedup_ingested(url, captured);

-- One row a file read to its end.
CREATE TABLE IF NOT EXISTS _webdedup_ingest_files (
    sha256      TEXT PRIMARY KEY,
    path        TEXT NOT NULL,
    kind        TEXT NOT NULL,        -- warc | jsonl | html
    ingested_at TEXT NOT NULL,
    pages       INTEGER NOT NULL,
    skipped     INTEGER NOT NULL,
    problems    INTEGER NOT NULL
);
