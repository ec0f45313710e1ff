-- A page's stored near-duplicate sketch.
SELECT scheme, sketch FROM main._webdedup_sketches WHERE id = :id;
