"""Verdicts as labels: which threshold agrees with the reviewer (``webdedup calibrate``).

Each verdict on a pair is a labelled pair: ``duplicate`` and ``canonical`` (the member should
have won: the reviewer holds the two for one page) are positives, ``not_duplicate`` a
negative. Its score is the run's verified similarity of the two pages when the verdict was
given (kept with the verdict; for an older verdict, the stored edge between the two pages or
the verified-pair cache of their texts). A threshold *contradicts* a positive pair whose score
is under it (the pair would be split) and a negative pair whose score is at or above it (the
pair would be grouped). :func:`calibrate` counts the contradictions at each threshold from
0.70 to 0.99 and names the one that contradicts the fewest.

Example::

    >>> labels = [Label(1, 2, True, 0.97), Label(3, 4, False, 0.91), Label(5, 6, True, 0.95)]
    >>> result = calibrate(labels)
    >>> result.contradictions[0.9], result.contradictions[0.93], result.best
    (1, 0, 0.93)
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from ..output.source import last_run
from ..store import connect, sql, table_exists
from ..store.verdicts import Verdict, read_verdicts

#: The thresholds tried: 0.70, 0.71, ..., 0.99.
THRESHOLDS = tuple(round(0.70 + i / 100, 2) for i in range(30))


@dataclass(frozen=True)
class Label:
    """One labelled pair: two page ids, whether they are duplicates, their score."""

    a: int
    b: int
    duplicate: bool
    score: float | None
    verdict: int = 0  #: the verdict it comes from

    def contradicted_at(self, threshold: float) -> bool:
        """Whether a run at ``threshold`` would decide this pair against the label."""
        if self.score is None:
            return False
        return (self.score < threshold) if self.duplicate else (self.score >= threshold)

    def as_json(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "duplicate": self.duplicate, "score": self.score,
                "verdict": self.verdict}


@dataclass(frozen=True)
class Calibration:
    """The contradictions at each threshold, and the threshold that agrees the most."""

    labels: tuple[Label, ...]
    contradictions: dict[float, int]
    best: float | None  #: the middle of the longest run of thresholds with the fewest
    best_range: tuple[float, float] | None
    run_threshold: float | None = None

    @property
    def scored(self) -> int:
        return sum(1 for label in self.labels if label.score is not None)

    def report(self) -> str:
        """The table and the conclusion, as ``webdedup calibrate`` prints them."""
        positives = sum(1 for x in self.labels if x.duplicate and x.score is not None)
        negatives = self.scored - positives
        lines = [
            f"{len(self.labels):,} verdicts on pairs: {positives:,} duplicates and "
            f"{negatives:,} not duplicates with a score"
            + (f", {len(self.labels) - self.scored:,} without one (not compared by the run)"
               if self.scored < len(self.labels) else ""),
        ]
        if self.best is None or self.best_range is None:
            lines.append("no verdict with a score: give verdicts in 'webdedup review' first")
            return "\n".join(lines)
        lines.append("threshold  contradicted")
        for t, n in self.contradictions.items():
            marks = []
            if t == self.best:
                marks.append("best")
            if self.run_threshold is not None and abs(t - self.run_threshold) < 1e-9:
                marks.append("the last run's")
            lines.append(f"{t:9.2f}  {n:12,}" + (f"  <- {', '.join(marks)}" if marks else ""))
        low, high = self.best_range
        fewest = self.contradictions[self.best]
        span = f"{low:.2f}" if low == high else f"any from {low:.2f} to {high:.2f}"
        lines.append(
            f"best threshold: {self.best:.2f} ({span} contradicts {fewest:,} of "
            f"{self.scored:,} verdicts)"
        )
        return "\n".join(lines)


def calibrate(
    labels: Iterable[Label],
    thresholds: Sequence[float] = THRESHOLDS,
    run_threshold: float | None = None,
) -> Calibration:
    """Count each threshold's contradictions (pure); ties go to the middle of the longest
    run of consecutive best thresholds (the margin on both sides), the lower of two middles."""
    kept = tuple(labels)
    counts = {t: sum(1 for x in kept if x.contradicted_at(t)) for t in thresholds}
    if not any(x.score is not None for x in kept):
        return Calibration(kept, counts, None, None, run_threshold)
    fewest = min(counts.values())
    runs: list[list[float]] = []
    for t in thresholds:
        if counts[t] != fewest:
            continue
        if runs and thresholds.index(t) == thresholds.index(runs[-1][-1]) + 1:
            runs[-1].append(t)
        else:
            runs.append([t])
    longest = max(runs, key=len)  # the first of equally long runs
    best = longest[(len(longest) - 1) // 2]
    return Calibration(kept, counts, best, (longest[0], longest[-1]), run_threshold)


def labels_of(conn: sqlite3.Connection, verdicts: Iterable[Verdict] | None = None) -> list[Label]:
    """The labelled pairs of the stored verdicts (a verdict on one page is none), each with
    its score: the one kept with the verdict, else the stored edge between the two pages,
    else the verified score of their two texts (the verification cache of minhash and simhash)."""
    out = []
    for v in read_verdicts(conn) if verdicts is None else verdicts:
        if v.page_b is None or v.page_a == v.page_b:
            continue
        score = v.score if v.score is not None else _stored_score(conn, v.page_a, v.page_b)
        out.append(Label(v.page_a, v.page_b, v.kind != "not_duplicate", score, v.id))
    return out


def _stored_score(conn: sqlite3.Connection, a: int, b: int) -> float | None:
    if table_exists(conn, "_webdedup_edges"):
        row = conn.execute(
            sql("review/label_edge_score"), {"low": min(a, b), "high": max(a, b)}
        ).fetchone()
        if row is not None:
            return float(row[0])
    if table_exists(conn, "_webdedup_verified") and table_exists(conn, "_webdedup_prepared"):
        row = conn.execute(sql("review/label_verified_score"), {"a": a, "b": b}).fetchone()
        if row is not None:
            return float(row[0])
    return None


def calibrate_db(db: str | Path, *, busy_timeout: float = 5.0) -> Calibration:
    """:func:`calibrate` on the verdicts stored in an annotated database."""
    conn = connect(db, busy_timeout=busy_timeout, write=False)
    try:
        conn.execute("BEGIN")  # one snapshot
        labels = labels_of(conn)
        run = last_run(conn) if table_exists(conn, "_webdedup_runs") else {}
        threshold = run.get("params", {}).get("threshold")
        conn.execute("COMMIT")
    finally:
        conn.close()
    return calibrate(labels, run_threshold=None if threshold is None else float(threshold))


def write_labels(labels: Iterable[Label], out: IO[str]) -> int:
    """The labelled pairs as JSON Lines (one object a pair: ``a``, ``b``, ``duplicate``,
    ``score``, ``verdict``), as ``benchmarks/corpus/evaluate.py --labels`` reads them; returns
    how many."""
    n = 0
    for label in labels:
        out.write(json.dumps(label.as_json(), sort_keys=True) + "\n")
        n += 1
    return n
