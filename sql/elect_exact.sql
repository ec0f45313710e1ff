-- Phase 3: one winner per exact component among the URL winners. A component is a set of URL
-- groups linked by shared content hashes (run_exact_component, from sql/exact_links.sql,
-- holds their URL winners); a URL winner without a row there is its own component and wins
-- alone, so only the linked ones go through the window.
DROP TABLE IF EXISTS temp.run_exact_election;
DROP TABLE IF EXISTS temp.run_exact_shared;
CREATE TEMP TABLE run_exact_shared (id INTEGER PRIMARY KEY, exact_rank INTEGER NOT NULL,
                                    exact_winner INTEGER NOT NULL);
INSERT INTO temp.run_exact_shared (id, exact_rank, exact_winner)
SELECT id, ROW_NUMBER() OVER w, FIRST_VALUE(id) OVER w
FROM (SELECT p.*, c.component AS component
      FROM temp.run_exact_component AS c
      JOIN temp.run_prepared AS p ON p.id = c.id)
WINDOW w AS (PARTITION BY component ORDER BY {election});
CREATE TEMP TABLE run_exact_election (id INTEGER PRIMARY KEY, exact_rank INTEGER NOT NULL,
                                      exact_winner INTEGER NOT NULL);
INSERT INTO temp.run_exact_election (id, exact_rank, exact_winner)
SELECT u.id, coalesce(s.exact_rank, 1), coalesce(s.exact_winner, u.id)
FROM temp.run_url_election AS u
LEFT JOIN temp.run_exact_shared AS s ON s.id = u.id
WHERE u.url_winner = u.id
ORDER BY u.id;
DROP TABLE temp.run_exact_shared;
