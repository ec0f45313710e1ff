-- Phase 4 (minhash, simhash): the exact group of each page of a verified edge (a pair of
-- temp.run_scores at or above the threshold, ? twice), not of every node.
SELECT n.id, n.component
FROM temp.run_near_nodes AS n
WHERE n.id IN (SELECT a FROM temp.run_scores WHERE score >= ?
               UNION SELECT b FROM temp.run_scores WHERE score >= ?);
