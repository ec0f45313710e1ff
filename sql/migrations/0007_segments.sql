-- Schema version 7: repeated segments (issue 16, part 3). A segment is a normalized line of a
-- page's text (webdedup.algorithms.segments); `_webdedup_page_segments` holds each processed
-- page's distinct segment hashes under its host, `_webdedup_segments` how many pages of the
-- host carry each segment found on two pages or more. Both are rebuilt by a full run and moved
-- by an incremental one (sql/segments_save*.sql), so their counts are always a full run's.
CREATE TABLE IF NOT EXISTS _webdedup_page_segments (
    host TEXT NOT NULL,
    hash INTEGER NOT NULL,
    id   INTEGER NOT NULL,
    PRIMARY KEY (host, hash, id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS _webdedup_page_segments_id ON _webdedup_page_segments(id);
CREATE TABLE IF NOT EXISTS _webdedup_segments (
    host  TEXT NOT NULL,
    hash  INTEGER NOT NULL,
    pages INTEGER NOT NULL,
    PRIMARY KEY (host, hash)
) WITHOUT ROWID;
