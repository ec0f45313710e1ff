-- Schema version 8: no band table. A page's LSH band keys are its sketch
-- (`_webdedup_sketches.sketch`: minhash keeps its 37 band keys of 32 bits there instead of
-- the 128-value signature; simhash keeps its hash, from which the keys follow), and a run
-- finds collisions by sorting the keys in memory (webdedup/algorithms/bands.py). The table's
-- 37 rows a page were most of the state and of the bytes a run wrote. A minhash database
-- gets one full run (its fingerprint changed); a simhash one keeps its state.
DROP TABLE IF EXISTS _webdedup_bands;
