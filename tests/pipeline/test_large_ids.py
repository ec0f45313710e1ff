"""Page ids past 32 bits: phase 4 keeps its node arrays as int32 where the ids fit
(``pipeline.phase4_near._narrow``), chunk by chunk, and writes the pairs' page ids over
their rows. A crawl whose ids straddle 2**31 (and pass 2**32) must come out as the same
crawl numbered 1, 2, 3 ... in the same order: the same groups, canonicals, kinds and scores.
Sketches are read three at a time so that int32 and int64 chunks meet in one array.
"""

from __future__ import annotations

import functools
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from conftest import PAGE_COLUMNS, crawl_with_duplicates, real_texts

from webdedup import Config, Deduplicator
from webdedup.pipeline import phase4_near
from webdedup.store import work


def pages() -> list[dict[str, Any]]:
    """Real texts with URL variants and exact copies, and near copies on other hosts (a word
    in forty changed)."""
    out = crawl_with_duplicates(40)
    for i, rec in enumerate(real_texts()[:40:2]):
        words = rec["text"].split()
        edited = " ".join("changed" if k % 40 == 7 else w for k, w in enumerate(words))
        out.append({"url": f"https://copies.example.com/{i}", "content": edited})
    return out


def ids_past_32_bits(n: int) -> list[int]:
    """``n`` ascending ids: a third small, a third around 2**31, a third past 2**33."""
    third = n // 3
    return ([r + 1 for r in range(third)]
            + [2**31 - third // 2 + r for r in range(third)]
            + [2**33 + r for r in range(n - 2 * third)])


def write(path: Path, ids: list[int], rows: list[dict[str, Any]]) -> None:
    conn = sqlite3.connect(path)
    cols = ", ".join(f'"{c}" TEXT' for c in PAGE_COLUMNS)
    conn.execute(f"CREATE TABLE pages (id INTEGER PRIMARY KEY, {cols})")
    conn.executemany(
        f"INSERT INTO pages (id, {', '.join(PAGE_COLUMNS)}) VALUES "
        f"(?, {', '.join('?' * len(PAGE_COLUMNS))})",
        [(i, *(r.get(c) for c in PAGE_COLUMNS)) for i, r in zip(ids, rows, strict=True)],
    )
    conn.commit()
    conn.close()


def outcome(path: Path, rank: dict[int, int]) -> tuple[set[frozenset[int]], dict[int, tuple]]:
    """The groups as sets of ranks, and each page's canonical (its rank), flag, kind, score."""
    conn = sqlite3.connect(path)
    rows = conn.execute(
        "SELECT id, dup_group, canonical_id, is_canonical, dup_kind, dup_score FROM pages"
    ).fetchall()
    conn.close()
    groups: dict[Any, set[int]] = {}
    for pid, group, *_ in rows:
        groups.setdefault(group, set()).add(rank[pid])
    return ({frozenset(g) for g in groups.values()},
            {rank[pid]: (rank.get(c), flag, kind, score)
             for pid, _, c, flag, kind, score in rows})


@pytest.mark.parametrize("method", ["minhash", "simhash"])
def test_ids_past_32_bits_group_as_small_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, method: str
) -> None:
    monkeypatch.setattr(phase4_near, "packed_sketches",
                        functools.partial(work.packed_sketches, rows=3))
    rows = pages()
    large = ids_past_32_bits(len(rows))
    small = list(range(1, len(rows) + 1))
    got = {}
    for name, ids in (("large", large), ("small", small)):
        db = tmp_path / f"{name}.sqlite"
        write(db, ids, rows)
        result = Deduplicator(config=Config(method=method)).run_on_db(db)
        got[name] = (result.near_duplicates, outcome(db, {i: r for r, i in enumerate(ids)}))
    assert got["large"] == got["small"]
    near, (groups, _) = got["large"]
    assert near > 0
    # near groups that hold both an id under 2**31 and one past it
    third = len(rows) // 3
    assert any(min(g) < third + third // 2 <= max(g) for g in groups if len(g) > 1)
