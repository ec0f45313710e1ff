-- Schema version 9: thin pages (issue 29). A page whose own text (its text without the lines
-- its host repeats: webdedup.algorithms.own) is shorter than min_words is 'thin'; why is kept
-- here, one row a thin page, replaced by a full run and by an incremental run's region.
CREATE TABLE IF NOT EXISTS _webdedup_thin (
    id     INTEGER PRIMARY KEY,
    reason TEXT NOT NULL
);
