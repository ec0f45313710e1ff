-- Phase 4's nodes with their sketches, in id order (their band keys pair them up:
-- algorithms/bands.candidate_pairs).
SELECT n.id, n.component, s.sketch
FROM temp.run_near_nodes AS n
JOIN temp.run_sketches AS s ON s.id = n.id
ORDER BY n.id;
