INSERT OR IGNORE INTO _webdedup_ingested
    (record_key, source_sha256, source_file, record_offset, page_id, url, captured, payload_digest)
VALUES (?, ?, ?, ?, ?, ?, ?, ?);
