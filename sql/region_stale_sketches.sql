-- The next :rows sketches of stale ids (store/sketch_blocks.py: written since their block
-- was) from :lo to :hi, packed into one row as sql/region_stored_sketches.sql packs them.
SELECT count(*), sum(length(sketch) <> :width), max(id), group_concat({sketch}, ''),
       group_concat(id)
FROM (SELECT id, sketch FROM main._webdedup_sketches
      WHERE id IN (SELECT id FROM main._webdedup_sketch_stale WHERE id >= :lo AND id <= :hi)
      ORDER BY id LIMIT :rows);
