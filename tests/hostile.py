"""Builders and checks for the hostile-input tests of tests/adversarial/.

``cli(*args)`` runs the CLI catching everything, and ``assert_clean`` checks what every run on
hostile input must give: no traceback (no exception other than SystemExit), an exit code in the
documented set, the canary table intact and ``PRAGMA integrity_check`` ok.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result
from conftest import crawl_with_duplicates

from webdedup.cli import cli as webdedup_cli

#: Exit codes the README documents (0 ok, 2 config/usage, 3 input, 4 locked, 5 read-only,
#: 6 schema too new, 7 ingest problems, 8 disk full, 9 a worker could not start, 130
#: interrupted). 1 is a bug: an error webdedup did not expect.
DOCUMENTED_EXIT_CODES = frozenset({0, 2, 3, 4, 5, 6, 7, 8, 9, 130})
CANARY = "canary"
#: The SQL injection that issue #11 found (a URL column name from a TOML config).
PAYLOAD = "\nSET x = 1 WHERE 0;\nDROP TABLE canary;\nCOMMIT;\n--"
#: Logical input columns and the page fields of ``crawl_with_duplicates`` they hold.
FIELDS = ("url", "title", "content", "datetime", "crawled", "category")


def cli(*args: str | Path) -> Result:
    """Run ``webdedup ARGS`` in-process, catching every exception (so a traceback shows)."""
    return CliRunner().invoke(webdedup_cli, [str(a) for a in args], catch_exceptions=True)


def assert_clean(result: Result, db: Path | None = None, *, codes: frozenset[int] = frozenset()
                 ) -> None:
    """No traceback, a documented exit code (or one of ``codes``), canary and file intact."""
    exc = result.exception
    if exc is not None and not isinstance(exc, SystemExit):
        import traceback

        tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        raise AssertionError(f"traceback (exit {result.exit_code}):\n{tb}\n{result.output}")
    allowed = codes or DOCUMENTED_EXIT_CODES
    assert result.exit_code in allowed, (result.exit_code, result.output)
    if db is not None and db.exists():
        assert_intact(db)


def assert_intact(db: Path) -> None:
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute(f"SELECT x FROM {CANARY}").fetchall() == [(1,)], "canary touched"
    finally:
        conn.close()


def qi(name: str) -> str:
    """A quoted identifier (the test's own, independent of webdedup's quote())."""
    return '"' + name.replace('"', '""') + '"'


def build_crawl(
    path: Path,
    *,
    table: str = "pages",
    names: dict[str, str] | None = None,
    n_originals: int = 8,
    integer_pk: bool = True,
    extra_columns: tuple[str, ...] = (),
    pages: list[dict[str, Any]] | None = None,
) -> Path:
    """A crawl database with ``table`` whose logical columns are named by ``names``, plus
    ``extra_columns`` (filled with row labels) and a canary table."""
    names = {f: f for f in FIELDS} | (names or {})
    pages = crawl_with_duplicates(n_originals) if pages is None else pages
    conn = sqlite3.connect(path)
    cols = [qi(names[f]) for f in FIELDS] + [qi(c) for c in extra_columns]
    pk = "id INTEGER PRIMARY KEY, " if integer_pk else ""
    conn.execute(f"CREATE TABLE {qi(table)} ({pk}{', '.join(c + ' TEXT' for c in cols)})")
    marks = ", ".join("?" * len(cols))
    conn.executemany(
        f"INSERT INTO {qi(table)} ({', '.join(cols)}) VALUES ({marks})",
        [
            [p.get(f) for f in FIELDS] + [f"{c}-{i}" for c in extra_columns]
            for i, p in enumerate(pages)
        ],
    )
    add_canary(conn)
    conn.commit()
    conn.close()
    return path


def add_canary(conn: sqlite3.Connection) -> None:
    conn.execute(f"CREATE TABLE IF NOT EXISTS {CANARY} (x)")
    conn.execute(f"INSERT INTO {CANARY} VALUES (1)")


def column_args(names: dict[str, str]) -> list[str]:
    """``--column NAME=COLUMN`` options for ``names``."""
    out: list[str] = []
    for logical, real in names.items():
        out += ["--column", f"{logical}={real}"]
    return out


def toml_config(path: Path, table: str, names: dict[str, str]) -> Path:
    """A TOML config file with ``[columns]`` table and names (basic strings, escaped)."""

    def basic(value: str) -> str:
        out = ['"']
        for ch in value:
            if ch in '"\\':
                out.append("\\" + ch)
            elif ord(ch) < 0x20 or ord(ch) == 0x7F:
                out.append(f"\\u{ord(ch):04x}")
            else:
                out.append(ch)
        out.append('"')
        return "".join(out)

    lines = ["[columns]", f"table = {basic(table)}"]
    lines += [f"{k} = {basic(v)}" for k, v in names.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
