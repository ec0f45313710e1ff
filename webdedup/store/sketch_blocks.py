"""The stored sketches packed in blocks of ids, for the one pass that reads them all.

A nightly run compares its changed pages' band keys with every stored sketch
(:func:`~webdedup.incremental.region.build_region`). Read from ``_webdedup_sketches``, a row
a sketch, that pass took most of a nightly run's region at ten million pages (SQLite walks
ten million records and ``group_concat`` copies each). ``_webdedup_sketch_blocks`` (schema
15) keeps the same sketches 4,096 ids to a row, as one BLOB each: read at the speed of a file.

The table of sketches stays what every other reader and writer uses; a block is a copy of
its ids' rows as they were when it was written, and ``_webdedup_sketch_stale`` lists the ids
written since: an incremental run marks its pages there in the transaction that claims its
write, before it writes their sketches (``sql/sketch_blocks_stale.sql``); a full run records
its write generation as :data:`VALID_FROM`, and the blocks written before it are not read
(deleting them would read their overflow pages under the lock: seconds at ten million
pages). So a block may be old, never wrong: :func:`stored_sketches` takes from each valid
block the ids not stale, and reads the rest — stale ids, and the ids of blocks missing or not
valid — from the table of sketches. At the end of each run :func:`refresh` writes again the
blocks that are missing, not valid or have many stale ids, a few to a transaction (each holds
the write lock for milliseconds), and stops when another run has claimed a write since.

>>> present = np.zeros(BLOCK // 8, np.uint8); present[0] = 0b101  # ids 0 and 2 of the block
>>> block_ids(1, present.tobytes()).tolist()
[4096, 4098]
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from .connection import transaction
from .sqlfiles import sql
from .state import meta_value, set_meta
from .tables import table_exists
from .work import LAST_ID, PackedSketches, packed_sketches

#: A block holds the ids ``b << BLOCK_BITS`` to ``((b + 1) << BLOCK_BITS) - 1``: 4,096 ids,
#: about 600 KB of minhash sketches (a nightly run writes again the block its new pages are
#: added to: small enough for that, large enough that ten million pages are 2,442 rows).
BLOCK_BITS = 12
BLOCK = 1 << BLOCK_BITS
#: A block with this many stale ids is written again by :func:`refresh` (pages a recrawl
#: changed, spread over the ids: each block gets a few a night, and the pass reads them
#: from the table of sketches until then; a block is rewritten once for every
#: ``STALE_REWRITE`` pages changed in it, at most).
STALE_REWRITE = BLOCK // 16
#: Sketch bytes :func:`refresh` writes in one transaction (and rows :func:`stored_sketches`
#: gathers before it yields: the kernel that compares them takes a call per chunk).
REFRESH_BYTES = 8 * 2**20
CHUNK_ROWS = 100_000
#: WAL bytes :func:`refresh` writes between two checkpoints (when it may checkpoint).
CHECKPOINT_BYTES = 64 * 2**20

BLOCKS = "_webdedup_sketch_blocks"
STALE = "_webdedup_sketch_stale"
#: The meta key holding the write generation of the last full run: blocks written by an
#: earlier run hold sketches that run replaced.
VALID_FROM = "sketch_blocks_from"


def block_ids(block: int, present: bytes) -> np.ndarray:
    """The ids a block holds: the set bits of ``present`` (bit ``i``: byte ``i >> 3``,
    bit ``i & 7``), from the block's first id."""
    bits = np.unpackbits(np.frombuffer(present, np.uint8), bitorder="little")
    return np.flatnonzero(bits).astype(np.int64) + (block << BLOCK_BITS)


def have_blocks(conn: sqlite3.Connection) -> bool:
    """Whether the state has the blocks' tables (schema 15 and later)."""
    return table_exists(conn, BLOCKS) and table_exists(conn, STALE)


def valid_from(conn: sqlite3.Connection) -> int:
    """The first write generation whose blocks hold the sketches (:data:`VALID_FROM`)."""
    return int(meta_value(conn, VALID_FROM) or 0)


def stored_sketches(conn: sqlite3.Connection, width: int) -> Iterator[PackedSketches]:
    """Every sketch of ``_webdedup_sketches`` once, ``width`` bytes each, in chunks: those of
    the blocks (their ids not stale, ascending within a chunk), then the ids no block holds
    and the stale ones (read from the table). Inside a read transaction, what it yields is
    the table as that transaction sees it."""
    if not have_blocks(conn):
        yield from packed_sketches(conn, "region_stored_sketches", width)
        return
    stale = np.fromiter(
        (i for (i,) in conn.execute(f"SELECT id FROM main.{STALE} ORDER BY id")), np.int64
    )
    held: list[int] = []
    ids: list[np.ndarray] = []
    packed: list[bytes] = []
    rows = 0
    query = (f"SELECT block, width, present, sketches FROM main.{BLOCKS} WHERE generation >= ? "
             "ORDER BY block")
    for block, bwidth, present, sketches in conn.execute(query, (valid_from(conn),)):
        got = block_ids(block, present) if bwidth == width else None
        if got is None or len(sketches) != len(got) * width:
            continue  # another width (another configuration's): read from the table
        held.append(block)
        lo = block << BLOCK_BITS  # (the last id of the top block is 2**63 - 1: no higher bound)
        first = int(np.searchsorted(stale, lo))
        last = int(np.searchsorted(stale, lo + BLOCK - 1, side="right"))
        if last > first:
            keep = ~np.isin(got, stale[first:last])
            got, sketches = got[keep], _rows(sketches, width, keep)
        ids.append(got)
        packed.append(sketches)
        rows += len(got)
        if rows >= CHUNK_ROWS:
            yield PackedSketches(np.concatenate(ids), [], b"".join(packed), width)
            ids, packed, rows = [], [], 0
    if rows:
        yield PackedSketches(np.concatenate(ids), [], b"".join(packed), width)
    for lo, hi in _gaps(held):
        yield from packed_sketches(conn, "region_stored_sketches", width, lo=lo, hi=hi)
    if stale.size and held:  # the stale ids of the blocks held (the others were read above)
        blocks_held = np.asarray(held, np.int64)
        inside = np.isin(stale >> BLOCK_BITS, blocks_held)
        if inside.any():
            lo, hi = int(stale[inside][0]), int(stale[inside][-1])
            for chunk in packed_sketches(conn, "region_stale_sketches", width, lo=lo, hi=hi):
                keep = np.isin(chunk.ids >> BLOCK_BITS, blocks_held)
                if keep.any():
                    yield PackedSketches(chunk.ids[keep], [], _rows(chunk.packed, width, keep),
                                         width)


def _rows(packed: bytes, width: int, keep: np.ndarray) -> bytes:
    """The sketches of ``packed`` (``width`` bytes each) where ``keep`` is true."""
    if keep.all():
        return packed
    return np.frombuffer(packed, np.uint8).reshape(len(keep), width)[keep].tobytes()


def _gaps(held: list[int]) -> Iterator[tuple[int, int]]:
    """The id ranges (inclusive) outside the blocks ``held`` (ascending).

    >>> list(_gaps([1, 2, 5])) == [(-2**63, 4095), (12288, 20479), (24576, 2**63 - 1)]
    True
    """
    lo = -LAST_ID - 1
    for block in held:
        if block << BLOCK_BITS > lo:
            yield lo, (block << BLOCK_BITS) - 1
        lo = (block + 1) << BLOCK_BITS
    if lo <= LAST_ID:
        yield lo, LAST_ID


@dataclass
class Refreshed:
    """What :func:`refresh` did: blocks written, blocks deleted (no sketch left in them),
    transactions, the longest of them (seconds), and whether it stopped because another run
    claimed a write."""

    written: int = 0
    deleted: int = 0
    transactions: int = 0
    longest: float = 0.0
    stopped: bool = False


def refresh(
    conn: sqlite3.Connection,
    width: int | None,
    generation: int,
    ours: Callable[[], bool],
    checkpoint: bool = False,
) -> Refreshed:
    """Write again the blocks that are missing (ids with sketches that no block holds), not
    valid (:func:`valid_from`), of another width, or hold :data:`STALE_REWRITE` stale ids or
    more, as of write generation ``generation``; delete those whose ids have no sketch left.
    ``width`` None (a method without sketches): every block goes.

    Outside a transaction; each of its own holds blocks of about :data:`REFRESH_BYTES`, reads
    their rows from the table of sketches (read once before, outside it: the page cache holds
    them then) and begins by asking ``ours()`` whether the write generation is still the
    run's: when another run has claimed a write since, it stops (that run may have marked ids
    stale that a block written now would forget). ``checkpoint``: a passive checkpoint after
    each :data:`CHECKPOINT_BYTES` written (the run's own connection, whose automatic
    checkpoints are off)."""
    done = Refreshed()
    if not have_blocks(conn):
        return done
    todo = _blocks_to_write(conn, width)
    per = max(1, REFRESH_BYTES // (BLOCK * (width or 64)))  # (no width: blocks only deleted)
    since = 0
    for i in range(0, len(todo), per):
        part = todo[i : i + per]
        if width is not None:  # read before the lock
            _warm(conn, part[0] << BLOCK_BITS, ((part[-1] + 1) << BLOCK_BITS) - 1)
        start = time.perf_counter()
        with transaction(conn):
            if not ours():
                done.stopped = True
                return done
            for block in part:
                size = _write_block(conn, block, width, generation)
                since += size
                if size:
                    done.written += 1
                else:
                    done.deleted += 1
        done.transactions += 1
        done.longest = max(done.longest, time.perf_counter() - start)
        if checkpoint and since >= CHECKPOINT_BYTES:
            conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
            since = 0
    return done


def _warm(conn: sqlite3.Connection, lo: int, hi: int) -> None:
    conn.execute(
        "SELECT sum(length(sketch)) FROM main._webdedup_sketches WHERE id BETWEEN ? AND ?",
        (lo, hi),
    ).fetchone()


def _blocks_to_write(conn: sqlite3.Connection, width: int | None) -> list[int]:
    """The blocks :func:`refresh` writes: the blocks of the ids with sketches, found by one
    seek a block (ids may be sparse), not held, not valid, of another width or with many stale
    ids; and the blocks held whose ids have no sketch left (all of them for ``width`` None)."""
    first = valid_from(conn)
    held = {
        block: (bwidth if generation >= first else None)
        for block, bwidth, generation in conn.execute(
            f"SELECT block, width, generation FROM main.{BLOCKS}"
        )
    }
    if width is None:
        return sorted(held)
    stale = dict(
        conn.execute(
            f"SELECT id >> {BLOCK_BITS}, count(*) FROM main.{STALE} GROUP BY 1"
        ).fetchall()
    )
    with_rows: list[int] = []
    seek = "SELECT id FROM main._webdedup_sketches WHERE id >= ? ORDER BY id LIMIT 1"
    row = conn.execute(seek, (-LAST_ID - 1,)).fetchone()
    while row is not None:
        block = int(row[0]) >> BLOCK_BITS
        with_rows.append(block)
        if block >= LAST_ID >> BLOCK_BITS:
            break
        row = conn.execute(seek, ((block + 1) << BLOCK_BITS,)).fetchone()
    found = set(with_rows)
    todo = [
        b for b in with_rows if held.get(b) != width or stale.get(b, 0) >= STALE_REWRITE
    ]
    todo += [b for b in held if b not in found]
    return sorted(todo)


def _write_block(
    conn: sqlite3.Connection, block: int, width: int | None, generation: int
) -> int:
    """Write block ``block`` from the table of sketches (inside a transaction) and clear its
    stale ids; delete it when it has no sketch (or ``width`` is None). Returns the sketch bytes
    written."""
    lo, hi = block << BLOCK_BITS, ((block + 1) << BLOCK_BITS) - 1
    conn.execute(f"DELETE FROM main.{STALE} WHERE id BETWEEN ? AND ?", (lo, hi))
    chunks = [] if width is None else list(
        packed_sketches(conn, "region_stored_sketches", width, rows=BLOCK, lo=lo, hi=hi)
    )
    ids = np.concatenate([c.ids for c in chunks]) if chunks else np.empty(0, np.int64)
    if not ids.size or width is None:
        conn.execute(f"DELETE FROM main.{BLOCKS} WHERE block = ?", (block,))
        return 0
    bits = np.zeros(BLOCK, np.uint8)
    bits[ids - lo] = 1
    present = np.packbits(bits, bitorder="little").tobytes()
    sketches = b"".join(c.packed for c in chunks)
    conn.execute(
        f"INSERT OR REPLACE INTO main.{BLOCKS} (block, generation, width, present, sketches) "
        "VALUES (?, ?, ?, ?, ?)",
        (block, generation, width, present, sketches),
    )
    return len(sketches)


def mark_stale_sql() -> str:
    """``sql/sketch_blocks_stale.sql``: the region's rewritten pages marked stale."""
    return sql("sketch_blocks_stale", bits=str(BLOCK_BITS))


def invalidate(conn: sqlite3.Connection, generation: int) -> None:
    """A full run, in the transaction that claims its write (generation ``generation``),
    before it writes the sketches: the blocks written before it are no longer read
    (:data:`VALID_FROM`); the stale ids go (small rows: cheap to delete)."""
    if have_blocks(conn):
        set_meta(conn, VALID_FROM, str(generation))
        conn.execute(f"DELETE FROM main.{STALE}")
