"""The election order is defined once (``algorithms.election.ELECTION_KEYS``, as data) and the
three orderings built from it agree: SQLite's window (``order_by_sql``), the Python sort key
(``sort_key``, used by ``explain`` and the Daft path's clustering) and Daft's window
(``distributed``'s ``election_window``), on the same pages.
"""

from __future__ import annotations

import itertools
import random
import sqlite3
from dataclasses import dataclass

import pytest

from webdedup.algorithms.election import (
    DEFAULT_ELECTION,
    ELECTION_KEYS,
    order_by_sql,
    sort_key,
)
from webdedup.distributed.elections import elect, election_window

COLUMNS = ("id", "g", "is_external", "dt", "crawled_ts", "text_len", "is_https", "url_len")


@dataclass(frozen=True)
class Row:
    id: int
    g: int
    is_external: int
    dt: float | None
    crawled_ts: float | None
    text_len: int
    is_https: int
    url_len: int


def _pages() -> list[Row]:
    """Every combination of two or three values a key (NULLs included), so each key decides
    some ties and passes others on; ids shuffled so ``lower_id`` is not the input order; two
    partitions."""
    combos = list(itertools.product(
        (0, 1), (None, 1.5e9, 1.7e9), (None, 3.0e8, 0.0), (120, 4000), (0, 1), (25, 60)
    ))
    ids = random.Random(7).sample(range(1, 10 * len(combos)), 2 * len(combos))
    return [Row(pid, n % 2, *combos[n % len(combos)]) for n, pid in enumerate(ids)]


ORDERS = [
    DEFAULT_ELECTION,
    ("older_datetime", "older_crawled", "shorter_url"),
    *[(name,) for name in ELECTION_KEYS],
]


def _sqlite_order(pages: list[Row], keys: tuple[str, ...]) -> dict[int, list[int]]:
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE TABLE p ({', '.join(COLUMNS)})")
    conn.executemany(
        f"INSERT INTO p VALUES ({', '.join('?' * len(COLUMNS))})",
        [tuple(getattr(r, c) for c in COLUMNS) for r in pages],
    )
    rows = conn.execute(
        "SELECT g, id, ROW_NUMBER() OVER (PARTITION BY g ORDER BY "
        f"{order_by_sql(keys)}) AS rank FROM p ORDER BY g, rank"
    ).fetchall()
    conn.close()
    out: dict[int, list[int]] = {}
    for g, pid, _ in rows:
        out.setdefault(g, []).append(pid)
    return out


def _python_order(pages: list[Row], keys: tuple[str, ...]) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for row in sorted(pages, key=sort_key(keys)):
        out.setdefault(row.g, []).append(row.id)
    return out


def _daft_order(pages: list[Row], keys: tuple[str, ...], window: bool) -> dict[int, list[int]]:
    import daft
    from daft import col
    from daft.functions import row_number

    df = daft.from_pydict({c: [getattr(r, c) for r in pages] for c in COLUMNS})
    if window:
        ranked = df.with_column("rank", row_number().over(election_window("g", keys)))
    else:  # what webdedup daft runs (a partition's rows sorted by sort_key in a UDF)
        ranked = df.join(elect(df, "g", keys, "rank", "winner"), on="id")
    table = ranked.select("g", "id", "rank").sort([col("g"), col("rank")]).to_pydict()
    out: dict[int, list[int]] = {}
    for g, pid in zip(table["g"], table["id"], strict=True):
        out.setdefault(g, []).append(pid)
    return out


@pytest.mark.parametrize("keys", ORDERS, ids=[",".join(k) for k in ORDERS])
def test_sql_python_and_daft_elect_in_the_same_order(keys: tuple[str, ...]) -> None:
    pages = _pages()
    by_sql = _sqlite_order(pages, keys)
    assert sorted(len(v) for v in by_sql.values()) == [len(pages) // 2] * 2
    assert _python_order(pages, keys) == by_sql
    assert _daft_order(pages, keys, window=True) == by_sql
    assert _daft_order(pages, keys, window=False) == by_sql


def test_each_ordering_is_built_from_the_key_data() -> None:
    newer = ELECTION_KEYS["newer_datetime"]
    assert (newer.column, newer.descending, newer.nullable) == ("dt", True, True)
    assert newer.sql == "dt IS NULL, dt DESC"
    assert order_by_sql(DEFAULT_ELECTION) == (
        "is_external ASC, dt IS NULL, dt DESC, crawled_ts IS NULL, crawled_ts DESC, "
        "text_len DESC, is_https DESC, url_len ASC, id ASC"
    )
