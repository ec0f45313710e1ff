#!/usr/bin/env python3
"""Every write transaction of a run's write-back, one line each (issue #33, item 1: the
write lock held at most about ``--write-lock`` at a time).

    python -m benchmarks.studies.lock_holds \
        ~/.cache/webdedup-bench/corpus-1000000-seed1-short-fresh.sqlite --work DIR

Copies the corpus into ``DIR`` and runs a first ``webdedup db`` pass on the copy
(``Deduplicator`` with its defaults, ``--write-lock`` 1 s unless given), with each write
transaction (``phase5_write_back._Writer.hold``) timed and its rows counted
(``total_changes``). Prints each transaction of the step given by ``--step`` (default: the
annotations of ``pages``) — seconds from the start of the write-back, the lock held, rows,
microseconds a row, and how much of the hold was the commit (the pages it changed written into
the WAL, without a sync under ``synchronous = NORMAL``) — and a summary of every step:
transactions, the longest hold, all holds, and the bytes the process wrote in its transactions
and after each (until the next: the passive checkpoints, ``CHECKPOINT_AFTER``), as Linux counts
them (``/proc/self/io``, TEMP pages never written out included; a 4 KiB write may count a whole
large folio, see ``benchmarks/studies/dirty_folios.py``). Between two lines there are a pause
(0.15 s) at times and the next batch's bounds; the gaps of seconds are the passive checkpoints.
Each line also says by how many bytes the transaction made the WAL file longer (its size,
``stat``-ed before and after; the write keeps within the file once ``WAL_ROOM`` bytes are
written since a catch-up), and the summary gives the longest hold and commit of the
transactions that made it longer and of the others (writing past the end of the WAL costs the
kernel several times what writing over frames already in it does), and the last line how many
times the write waited for a checkpoint to catch up.
``--jsonl FILE`` keeps the raw lines (time, step, held, rows, the bytes counted before and
after, the seconds of the hold its commit took, and the bytes the WAL file grew by). A million
pages take about five minutes here.

``--wal-room MIB`` sets the write's ``WAL_ROOM`` for the run (``0``: the write never keeps
within the WAL file, as before 2026-12-06), to compare the two on the same corpus:

    python -m benchmarks.studies.lock_holds CORPUS --work DIR --wal-room 0

``--in-place`` runs on the database given instead of a copy (one too large to copy: ten
million pages are 31 GB), and ``--full`` makes that run full (``webdedup db --full``): on a
database a run annotated already, a full run rewrites the state tables whole, in batches,
and only the annotations that change.

    python -m benchmarks.studies.lock_holds DB --in-place --full --step _webdedup_prepared
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def written() -> int:
    """Bytes this process has had written (``/proc/self/io`` ``write_bytes``; not less the
    cancelled ones: Linux counts those when a file is deleted, in another step than the
    one that wrote them)."""
    fields = dict(line.split(": ") for line in Path("/proc/self/io").read_text().splitlines())
    return int(fields["write_bytes"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path,
                        help="a pages database (copied, never written, unless --in-place)")
    parser.add_argument("--work", type=Path, help="where the copy goes (not with --in-place)")
    parser.add_argument("--step", default="annotations", help="the step whose lines to print")
    parser.add_argument("--jsonl", type=Path, help="write every transaction here too")
    parser.add_argument("--write-lock", type=float, default=1.0, help="seconds (the default 1)")
    parser.add_argument("--in-place", action="store_true",
                        help="run on the database itself (it is annotated), not on a copy")
    parser.add_argument("--full", action="store_true", help="a full run (webdedup db --full)")
    parser.add_argument("--wal-room", type=float, metavar="MIB",
                        help="phase5_write_back.WAL_ROOM in MiB for this run (a comparison: "
                             "0 turns the rule off)")
    args = parser.parse_args(argv)
    if (args.work is None) != args.in_place:
        parser.error("give --work DIR (a copy is run on) or --in-place, not both")

    from webdedup import Config, Deduplicator
    from webdedup.pipeline import phase5_write_back as wb


    if args.in_place:
        db = args.corpus
    else:
        args.work.mkdir(parents=True, exist_ok=True)
        db = args.work / "lock-holds.sqlite"
        for leftover in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):  # a copy of ours, no run open
            leftover.unlink(missing_ok=True)
        shutil.copy(args.corpus, db)

    lines: list[tuple[float, str, float, int, int, int, float, int]] = []
    hold = wb._Writer.hold
    wal = Path(f"{db}-wal")

    def wal_size() -> int:  # (stat: no descriptor of the file is opened)
        try:
            return wal.stat().st_size
        except FileNotFoundError:
            return 0

    catch_ups = [0]
    catch_up = wb._Checkpointer.catch_up

    def counted(self: wb._Checkpointer) -> None:
        catch_ups[0] += 1
        catch_up(self)

    @contextmanager
    def timed(self: wb._Writer, step: str = "last") -> Iterator[None]:
        before, changes, wrote = len(self.holds), self.ctx.conn.total_changes, written()
        size = wal_size()
        with hold(self, step):
            yield
            written_out = time.perf_counter()  # what is left of the hold is the commit
        if len(self.holds) > before:
            rows = self.ctx.conn.total_changes - changes
            commit = time.perf_counter() - written_out
            lines.append((time.perf_counter(), step, self.holds[-1], rows, wrote, written(),
                          commit, max(0, wal_size() - size)))

    room = wb.WAL_ROOM
    wb._Writer.hold = timed  # type: ignore[method-assign]
    wb._Checkpointer.catch_up = counted  # type: ignore[method-assign]
    try:
        if args.wal_room is not None:  # (0: never keep within the file)
            wb.WAL_ROOM = int(args.wal_room * 2**20) if args.wal_room > 0 else 2**62
        started = time.perf_counter()
        result = Deduplicator(config=Config(write_lock=args.write_lock)).run_on_db(
            db, full=args.full)
    finally:
        wb._Writer.hold = hold  # type: ignore[method-assign]
        wb._Checkpointer.catch_up = catch_up  # type: ignore[method-assign]
        wb.WAL_ROOM = room
    wall = time.perf_counter() - started
    peaks = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
             resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)
    if args.jsonl:
        with args.jsonl.open("w") as f:
            for line in lines:
                f.write(json.dumps(line) + "\n")
    if not lines:
        print("the write went in one transaction (a write under --write-lock)")
        return 0
    zero = lines[0][0] - lines[0][2]
    print(f"{args.step}: at (s), held (s), rows, us a row, of the hold the commit (s), "
          "MiB the WAL file grew by")
    for at, step, held, rows, _, _, commit, grew in lines:
        if step == args.step:
            print(f"{at - zero:8.2f} {held:7.3f} {rows:9,} {1e6 * held / max(rows, 1):7.1f}"
                  f" {commit:7.3f} {grew / 2**20:7.1f}")
    # the bytes between two transactions (the passive checkpoints) go to the step before
    gaps = [nxt[4] - line[5] for line, nxt in zip(lines, lines[1:], strict=False)] + [0]
    print("\nstep: transactions, longest hold, all holds (s), MiB written in them and after them"
          " (as Linux counts them: benchmarks/studies/dirty_folios.py), the longest commit (s)")
    for step in dict.fromkeys(line[1] for line in lines):
        mine = [i for i, line in enumerate(lines) if line[1] == step]
        holds = [lines[i][2] for i in mine]
        inside = sum(lines[i][5] - lines[i][4] for i in mine) / 2**20
        after = sum(gaps[i] for i in mine) / 2**20
        commit = max(lines[i][6] for i in mine)
        print(f"{step:28} {len(holds):4} {max(holds):7.3f} {sum(holds):8.2f} {inside:9,.0f}"
              f" {after:9,.0f} {commit:7.3f}")
    for name, which in (("that grew the WAL file", True), ("the others", False)):
        some = [line for line in lines if (line[7] > 0) == which]
        if some:
            grown = sum(line[7] for line in some) / 2**20
            print(f"transactions {name}: {len(some)}, longest hold "
                  f"{max(line[2] for line in some):.3f} s, longest commit "
                  f"{max(line[6] for line in some):.3f} s, {grown:,.0f} MiB grown")
    print(
        f"\nrun {wall:.0f} s, {result.pages:,} pages; write-back {result.timings['write_back']:.1f}"
        f" s, longest hold {max(line[2] for line in lines):.3f} s, all holds "
        f"{sum(line[2] for line in lines):.1f} s in {len(lines)} transactions, "
        f"{catch_ups[0]} catch-ups; {(lines[-1][5] - lines[0][4]) / 2**20:,.0f} MiB written "
        "from the first to the last, "
        f"database {db.stat().st_size / 2**20:,.0f} MiB; peak {peaks[0]:,.0f} MiB (the largest "
        f"worker {peaks[1]:,.0f} MiB)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
