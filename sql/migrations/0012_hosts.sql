-- Schema version 12: the pages of each host, by host (issue 33). A nightly run's own-content
-- and n_min steps take in every page of a host (sql/region_hosts.sql,
-- own_hosts_incremental.sql); with no index on
-- _webdedup_prepared(host) each of them read the whole table and looked its every host up
-- (2.2 s of a 12.5 s nightly run at a million pages). Like _webdedup_url_keys, a table filled in
-- key order (an index on the prepared rows would be rewritten leaf by leaf by a batched
-- write). Filled here from the stored rows, so an upgraded database stays incremental.
CREATE TABLE IF NOT EXISTS _webdedup_hosts (
    host TEXT NOT NULL,
    id   INTEGER NOT NULL,
    PRIMARY KEY (host, id)
) WITHOUT ROWID;
DELETE FROM _webdedup_hosts;  -- (a state relabelled to an older schema may hold stale rows)
INSERT OR IGNORE INTO _webdedup_hosts (host, id)
SELECT host, id FROM _webdedup_prepared WHERE host IS NOT NULL ORDER BY host, id;
