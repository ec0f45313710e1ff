-- Schema version 15: the stored sketches also kept packed, 4,096 ids to a row (issue 33). A
-- nightly run compares its changed pages' band keys with every stored sketch
-- (incremental/region.py); read a row a sketch, ten million of them took most of its region's
-- 10.8 s; read in blocks, about a quarter of the CPU (benchmarks/studies/sketch_pass.py).
-- _webdedup_sketches stays what every other reader and writer uses; the blocks are a copy
-- for that one pass (store/sketch_blocks.py):
-- _webdedup_sketch_blocks: block b holds the sketches of ids b * 4096 .. b * 4096 + 4095 as
-- _webdedup_sketches held them when the block was written: bit (id - b * 4096) of present
-- (byte >> 3, bit & 7) set for each id it holds, their sketches end to end in id order;
-- _webdedup_sketch_stale: ids whose sketch was written (added, changed, deleted) since their
-- block was: the pass reads them from _webdedup_sketches. An incremental run marks its pages'
-- ids here in the transaction that claims its write (before it writes their sketches); at its
-- end each run writes again the blocks missing or with many stale ids, a few to a
-- transaction, and stops if another run has claimed a write since. A full run deletes no
-- block (a block's row is 600 KB of overflow pages that a delete reads: seconds for all of
-- them at ten million pages, under the lock): it records its write generation in the meta key
-- sketch_blocks_from, and the blocks of earlier generations are not read, only replaced.
CREATE TABLE IF NOT EXISTS _webdedup_sketch_blocks (
    block      INTEGER PRIMARY KEY,
    generation INTEGER NOT NULL,  -- the write generation of the run that wrote it
    width      INTEGER NOT NULL,  -- bytes a sketch
    present    BLOB NOT NULL,     -- 512 bytes: one bit an id of the block
    sketches   BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS _webdedup_sketch_stale (id INTEGER PRIMARY KEY);
