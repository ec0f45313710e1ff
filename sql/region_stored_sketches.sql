-- The next :rows stored sketches with ids from :lo to :hi, packed into one row: the band keys a
-- nightly run compares with its changed pages' (incremental.region._add_band_neighbours,
-- store.sketch_blocks.stored_sketches, for the ids no sketch block holds; store.work.
-- packed_sketches). How many, how many are not :width bytes long, the last id, the
-- sketches end to end and the ids comma-separated: both aggregates take the rows in one
-- pass, so the ids come in the sketches' order. {sketch} is the column, or hex() of it
-- where text is not UTF-8.
SELECT count(*), sum(length(sketch) <> :width), max(id), group_concat({sketch}, ''),
       group_concat(id)
FROM (SELECT id, sketch FROM main._webdedup_sketches WHERE id >= :lo AND id <= :hi
      ORDER BY id LIMIT :rows);
