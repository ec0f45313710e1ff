-- A page the levenshtein window links to the region joins its frontier (unless it is in).
INSERT INTO temp.run_frontier (id)
SELECT :id WHERE :id NOT IN (SELECT id FROM temp.run_region);
