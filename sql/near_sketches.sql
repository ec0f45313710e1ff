-- Phase 4's nodes with their sketches (their band keys pair them up:
-- algorithms/bands.candidate_pairs), the next :rows from id :lo on packed into one row
-- (store.work.packed_sketches): how many, how many are not :width bytes long, the last id,
-- the sketches end to end, the ids and their components comma-separated, all in the one
-- order of the aggregate's pass. {sketch} is the column, or hex() of it where text is not
-- UTF-8.
SELECT count(*), sum(length(sketch) <> :width), max(id), group_concat({sketch}, ''),
       group_concat(id), group_concat(component)
FROM (SELECT n.id, n.component, s.sketch
      FROM temp.run_near_nodes AS n
      JOIN temp.run_sketches AS s ON s.id = n.id
      WHERE n.id >= :lo
      ORDER BY n.id
      LIMIT :rows);
