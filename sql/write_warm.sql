-- Phase 5, before a batch of annotations takes the write lock (outside any transaction):
-- every cell of the page rows the batch rewrites (temp.run_write's rows :lo to :hi) read once,
-- in rowid order, so that the UPDATE under the lock finds them in the page cache. {cells}:
-- the sum of every column of p's length as a BLOB (a cell read whole, its overflow pages
-- too). Driven by temp.run_write, as the UPDATE is: a nightly run's few thousand rows are
-- scattered over the whole table, and a range of rowids would read every row between them.
-- At ten million pages the table is larger than the page cache and a batch sized from the
-- batches before held the lock 7.02 s once, its rows read from the disk under the lock.
SELECT sum({cells})
FROM temp.run_write AS w
CROSS JOIN main.{pages} AS p
WHERE w.id BETWEEN :lo AND :hi
  AND p.{rowid} = w.id;
