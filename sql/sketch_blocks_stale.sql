-- Mark the region's pages whose state this incremental run rewrites (temp.run_restate) as
-- stale in the sketch blocks (store/sketch_blocks.py), before their sketches are written: a
-- nightly run's pass reads a stale id's sketch from _webdedup_sketches, not from its block.
INSERT OR IGNORE INTO main._webdedup_sketch_stale (id)
SELECT id FROM temp.run_restate
WHERE (id >> {bits}) IN (SELECT block FROM main._webdedup_sketch_blocks)
ORDER BY id;
