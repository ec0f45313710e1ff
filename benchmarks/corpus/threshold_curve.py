#!/usr/bin/env python3
"""The decision curve of each method: which share of pairs at a known Levenshtein ratio is grouped.

    python -m benchmarks.corpus.make_ratio_pairs pairs.sqlite --pages 1200 --seed 1
    python -m benchmarks.corpus.threshold_curve pairs.sqlite [--methods minhash,simhash,levenshtein]
        [--thresholds 0.85,0.9,0.95] [--json]

For each method and threshold, webdedup runs (``Deduplicator(method=, threshold=)
.run_on_db``) on a fresh copy of the pairs corpus (``make_ratio_pairs.py``: real texts
and copies made by edits that neither cut nor frame them, each pair's ratio measured), and a
pair is *grouped* when both pages get one ``dup_group``. Printed:

* the share of pairs grouped per 0.02 of ratio (a column per method and threshold);
* for ``minhash``, the share of pairs that are LSH candidates at all (a band key shared);
* per method and threshold: the *crossing*, the cut ``c`` that best separates grouped pairs
  from the others (fewest pairs grouped under ``c`` plus pairs not grouped at or above it:
  where the share grouped crosses one half), and the *agreement*, the share of the pairs more
  than 0.02 away from the threshold that are decided as ``ratio >= threshold`` would decide.

The threshold means a Levenshtein ratio when the crossing is within about 0.01 of it and the
agreement is at least 0.95.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

BIN = 0.02
MARGIN = 0.02


@dataclass(frozen=True)
class Pair:
    copy: int
    original: int
    kind: str
    ratio: float


def load_pairs(db: str | Path) -> list[Pair]:
    con = sqlite3.connect(str(db))
    try:
        rows = con.execute("SELECT page_id, original_id, kind, ratio FROM pair_ratio").fetchall()
    finally:
        con.close()
    return [Pair(int(a), int(b), str(k), float(r)) for a, b, k, r in rows]


def fresh_copy(src: str | Path, dst: Path) -> Path:
    """A copy of the corpus made by SQLite itself (its backup API)."""
    with sqlite3.connect(str(src)) as a, sqlite3.connect(str(dst)) as b:
        a.backup(b)
    a.close()
    b.close()
    return dst


def grouped(db: str | Path, method: str, threshold: float, workdir: Path,
            pairs: Sequence[Pair]) -> list[bool]:
    """Run ``method`` at ``threshold`` on a copy of ``db``: is each pair in one group?"""
    from webdedup import Deduplicator

    run_db = fresh_copy(db, workdir / f"{method}-{threshold}.sqlite")
    Deduplicator(method=method, threshold=threshold).run_on_db(str(run_db))
    con = sqlite3.connect(str(run_db))
    try:
        group = dict(con.execute("SELECT id, dup_group FROM pages"))
    finally:
        con.close()
    run_db.unlink()
    return [group[p.copy] is not None and group[p.copy] == group[p.original] for p in pairs]


def candidates(db: str | Path, threshold: float, pairs: Sequence[Pair]) -> list[bool]:
    """Would ``minhash``'s LSH propose each pair (one band key shared) at ``threshold``?"""
    from webdedup import Config
    from webdedup.algorithms.sketch import sketch_texts
    from webdedup.algorithms.text import sketch_utf8

    spec = Config(threshold=threshold).near_spec()
    con = sqlite3.connect(str(db))
    try:
        text = dict(con.execute("SELECT id, content FROM pages"))
    finally:
        con.close()
    out = []
    for p in pairs:
        pair = [sketch_utf8(text[p.copy]), sketch_utf8(text[p.original])]
        (_, ka), (_, kb) = sketch_texts(spec, pair)
        out.append(bool(set(ka) & set(kb)))
    return out


def crossing(ratios: Sequence[float], decided: Sequence[bool]) -> float:
    """The cut that best separates grouped pairs (at or above it) from the others; the middle
    of the best cuts when several tie."""
    order = sorted(zip(ratios, decided, strict=True))
    # errors of the cut just below order[i]: grouped pairs under it + ungrouped at or above
    below_grouped = 0
    above_ungrouped = sum(1 for _, d in order if not d)
    best, cuts = None, []
    for i, (r, d) in enumerate(order):
        errors = below_grouped + above_ungrouped
        cut = r if i == 0 else (order[i - 1][0] + r) / 2
        if best is None or errors < best:
            best, cuts = errors, [cut]
        elif errors == best:
            cuts.append(cut)
        below_grouped += d
        above_ungrouped -= not d
    if best is None or below_grouped + above_ungrouped < best:
        return order[-1][0] if order else 1.0
    if below_grouped + above_ungrouped == best:
        cuts.append(order[-1][0])
    return (cuts[0] + cuts[-1]) / 2


def agreement(ratios: Sequence[float], decided: Sequence[bool], threshold: float) -> float:
    far = [(r >= threshold) == d for r, d in zip(ratios, decided, strict=True)
           if abs(r - threshold) > MARGIN]
    return sum(far) / len(far) if far else 1.0


def bins(ratios: Sequence[float], decided: Sequence[bool]) -> dict[float, tuple[int, int]]:
    """``{bin start: (pairs, grouped)}`` per :data:`BIN` of ratio."""
    out: dict[float, list[int]] = {}
    for r, d in zip(ratios, decided, strict=True):
        start = round(int(r / BIN + 1e-9) * BIN, 2)
        acc = out.setdefault(start, [0, 0])
        acc[0] += 1
        acc[1] += d
    return {k: (v[0], v[1]) for k, v in sorted(out.items())}


def curves(db: str | Path, methods: Sequence[str], thresholds: Sequence[float],
           lsh: bool = True) -> dict:
    pairs = load_pairs(db)
    ratios = [p.ratio for p in pairs]
    columns: dict[str, list[bool]] = {}
    with tempfile.TemporaryDirectory(prefix="webdedup-curve-") as tmp:
        for method in methods:
            for t in thresholds:
                columns[f"{method}@{t}"] = grouped(db, method, t, Path(tmp), pairs)
    if lsh and "minhash" in methods:
        for t in sorted(set(thresholds)):
            columns[f"lsh@{t}"] = candidates(db, t, pairs)
    summary = {}
    for name, decided in columns.items():
        t = float(name.split("@")[1])
        summary[name] = {
            "crossing": round(crossing(ratios, decided), 4),
            "agreement": round(agreement(ratios, decided, t), 4),
            "bins": {f"{k:.2f}": v for k, v in bins(ratios, decided).items()},
        }
    return {"pairs": len(pairs), "columns": summary}


def format_report(result: dict) -> str:
    cols = result["columns"]
    names = list(cols)
    starts = sorted({b for c in cols.values() for b in c["bins"]})
    width = max(12, *(len(n) + 1 for n in names))
    lines = [f"{result['pairs']} pairs; share grouped per {BIN} of Levenshtein ratio "
             "(lsh@t: share proposed by minhash's LSH)", ""]
    lines.append(f"{'ratio':<12}{'pairs':>6}" + "".join(f"{n:>{width}}" for n in names))
    for s in starts:
        n = next(c["bins"][s][0] for c in cols.values() if s in c["bins"])
        row = f"{s}-{float(s) + BIN:.2f}  {n:>6}"
        for name in names:
            total, hit = cols[name]["bins"].get(s, (0, 0))
            row += f"{hit / total if total else 0:>{width}.2f}"
        lines.append(row)
    lines += ["", f"{'':<18}" + "".join(f"{n:>{width}}" for n in names)]
    lines.append(f"{'crossing':<18}" + "".join(f"{cols[n]['crossing']:>{width}.3f}" for n in names))
    lines.append(f"{'agreement >0.02':<18}"
                 + "".join(f"{cols[n]['agreement']:>{width}.3f}" for n in names))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("db", help="a corpus written by make_ratio_pairs.py")
    ap.add_argument("--methods", default="minhash,simhash,levenshtein")
    ap.add_argument("--thresholds", default="0.85,0.9,0.95")
    ap.add_argument("--no-lsh", action="store_true", help="leave out the LSH candidate columns")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    result = curves(args.db, args.methods.split(","),
                    [float(t) for t in args.thresholds.split(",")], lsh=not args.no_lsh)
    print(json.dumps(result, indent=2) if args.json else format_report(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
