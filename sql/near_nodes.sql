-- Phase 4 works on the distinct texts of each exact group (a group can hold several texts:
-- re-crawls of one URL), one page per (group, content hash), long enough to judge.
-- Most exact groups are one page, its own node: only the pages of the groups of two pages or
-- more (run_shared_exact: the winners some other page elected) are grouped by text, and the
-- rest are taken as they are (a GROUP BY over every page sorted them all).
DROP TABLE IF EXISTS temp.run_near_nodes;
CREATE TEMP TABLE run_near_nodes (id INTEGER PRIMARY KEY, component INTEGER NOT NULL);
DROP TABLE IF EXISTS temp.run_shared_exact;
CREATE TEMP TABLE run_shared_exact (winner INTEGER PRIMARY KEY);
INSERT OR IGNORE INTO temp.run_shared_exact (winner)
SELECT e.exact_winner
FROM temp.run_url_election AS u
JOIN temp.run_exact_election AS e ON e.id = u.url_winner
WHERE u.id <> e.exact_winner;
INSERT INTO temp.run_near_nodes (id, component)
SELECT p.id, p.id
FROM temp.run_prepared AS p
JOIN temp.run_url_election AS u ON u.id = p.id
JOIN temp.run_exact_election AS e ON e.id = u.url_winner
WHERE p.word_count >= :min_words AND e.exact_winner = p.id
  AND p.id NOT IN (SELECT winner FROM temp.run_shared_exact)
ORDER BY p.id;
INSERT INTO temp.run_near_nodes (id, component)
SELECT MIN(p.id), e.exact_winner
FROM temp.run_url_election AS u
JOIN temp.run_exact_election AS e ON e.id = u.url_winner
JOIN temp.run_prepared AS p ON p.id = u.id
WHERE p.word_count >= :min_words
  AND e.exact_winner IN (SELECT winner FROM temp.run_shared_exact)
GROUP BY e.exact_winner, p.content_hash;
DROP TABLE temp.run_shared_exact;
CREATE INDEX temp.run_near_nodes_component ON run_near_nodes(component);
