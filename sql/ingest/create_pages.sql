-- The pages table webdedup ingest creates when the database has none.
CREATE TABLE {table} (
    id             INTEGER PRIMARY KEY,
    {url}          TEXT NOT NULL,
    {title}        TEXT,
    {content}      TEXT,
    {datetime}     TEXT,
    {crawled}      TEXT,
    content_type   TEXT,
    status         INTEGER,
    warc_record_id TEXT,
    source_file    TEXT,
    extraction     TEXT              -- 'ok', 'empty' (nothing extracted) or 'given' (JSONL text)
);
