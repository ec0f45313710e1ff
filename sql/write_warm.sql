-- Phase 5, before a batch of annotations takes the write lock (outside any transaction):
-- every cell of the page rows the batch rewrites (rowids :lo to :hi, inclusive) read once,
-- in rowid order, so that the UPDATE under the lock finds them in the page cache. {cells}:
-- the sum of every column's length as a BLOB (a cell read whole, its overflow pages too).
-- At ten million pages the table is larger than the page cache and a batch sized from the
-- batches before held the lock 7.02 s once, its rows read from the disk under the lock.
SELECT sum({cells})
FROM main.{pages}
WHERE {rowid} BETWEEN :lo AND :hi;
