-- Phase 4 works on the distinct texts of each exact group (a group can hold several texts:
-- re-crawls of one URL), one page per (group, content hash), long enough to judge.
DROP TABLE IF EXISTS temp.run_near_nodes;
CREATE TEMP TABLE run_near_nodes (id INTEGER PRIMARY KEY, component INTEGER NOT NULL);
INSERT INTO temp.run_near_nodes (id, component)
SELECT MIN(p.id), e.exact_winner
FROM temp.run_prepared AS p
JOIN temp.run_url_election AS u ON u.id = p.id
JOIN temp.run_exact_election AS e ON e.id = u.url_winner
WHERE p.word_count >= :min_words
GROUP BY e.exact_winner, p.content_hash;
CREATE INDEX temp.run_near_nodes_component ON run_near_nodes(component);
