-- One step of growing the region: the keys of the frontier (as last prepared and, for changed
-- pages, as prepared now), the pages they link to, and those new to the region become the
-- next frontier.
DELETE FROM temp.run_frontier_keys;
INSERT INTO temp.run_frontier_keys (url_key, content_hash)
SELECT url_key, content_hash FROM main._webdedup_prepared WHERE id IN (SELECT id FROM temp.run_frontier)
UNION
SELECT url_key, content_hash FROM temp.run_prepared WHERE id IN (SELECT id FROM temp.run_frontier);
DELETE FROM temp.run_next;
INSERT OR IGNORE INTO temp.run_next (id)
SELECT k.id FROM main._webdedup_url_keys AS k
WHERE k.url_key IN (SELECT url_key FROM temp.run_frontier_keys)
UNION
SELECT k.id FROM main._webdedup_content_hashes AS k
WHERE k.content_hash IN (SELECT content_hash FROM temp.run_frontier_keys)
UNION
SELECT e.b FROM main._webdedup_edges AS e WHERE e.a IN (SELECT id FROM temp.run_frontier)
UNION
SELECT e.a FROM main._webdedup_edges AS e WHERE e.b IN (SELECT id FROM temp.run_frontier);
DELETE FROM temp.run_frontier;
INSERT INTO temp.run_frontier (id)
SELECT id FROM temp.run_next WHERE id NOT IN (SELECT id FROM temp.run_region);
INSERT INTO temp.run_region (id) SELECT id FROM temp.run_frontier;
