-- Every stored sketch: the band keys a nightly run compares with its changed pages'
-- (incremental.region._add_band_neighbours, a chunk at a time).
SELECT id, sketch FROM main._webdedup_sketches;
