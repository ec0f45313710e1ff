-- Incremental levenshtein runs (schema version 3).

-- The nodes of the levenshtein window as of the last run, in window order (the primary key):
-- a nightly run places its changed nodes among them to find the window pairs it changes.
-- `component` is the node's exact group winner, `length` the length of the compared text
-- (for the length bound, without reading the page). Empty for the other methods.
CREATE TABLE IF NOT EXISTS _webdedup_nodes (
    url_key   TEXT NOT NULL,
    id        INTEGER NOT NULL,
    component INTEGER NOT NULL,
    length    INTEGER NOT NULL,
    PRIMARY KEY (url_key, id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS _webdedup_nodes_id ON _webdedup_nodes(id);
