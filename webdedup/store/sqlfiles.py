"""SQL loaded by name from the ``sql/`` folder, and the one way identifiers enter it.

SQL lives in ``.sql`` files of the top-level ``sql/`` folder (shipped in the wheel as
``webdedup/sql``). Values are always bound ``?``/``:name`` parameters; table and column
names that come from options go through :func:`quote` and are put into the text by
:func:`sql` in a single pass, so a name can never bring in a placeholder of its own.

Example::

    >>> quote('we"ird')
    '"we""ird"'
    >>> sql("export/page", pages=quote("{url}"), url=quote("u"), rowid=quote("rowid"),
    ...     title="NULL", text="NULL", html="NULL", content_hash="NULL").count('"{url}"')
    1
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Mapping
from functools import cache
from importlib import resources

#: A placeholder, or a stretch in which placeholders stay as written: a comment or a string
#: literal. A name filled into a ``--`` comment could end it with a newline of its own.
_TOKEN = re.compile(r"--[^\n]*|/\*.*?\*/|'(?:[^']|'')*'|\{([a-z_]+)\}", re.DOTALL)


def quote(identifier: str) -> str:
    """Quote an SQL identifier (table or column name) for SQLite."""
    if not isinstance(identifier, str) or not identifier or "\x00" in identifier:
        raise ValueError(f"invalid SQL identifier: {identifier!r}")
    return '"' + identifier.replace('"', '""') + '"'


@cache
def _sql_text(name: str) -> str:
    folder, _, leaf = name.rpartition("/")
    package = "webdedup.sql" + ("." + folder.replace("/", ".") if folder else "")
    return resources.files(package).joinpath(leaf + ".sql").read_text(encoding="utf-8")


def sql(name: str, **identifiers: str) -> str:
    r"""The text of ``sql/<name>.sql`` with its ``{placeholders}`` filled, in one pass.

    Placeholders are only ever filled with quoted identifiers (:func:`quote`) or fragments
    built from fixed vocabularies (the election order), never with user values. The template
    is scanned once: a filled-in name that itself reads ``{url}`` stays as it is. Placeholders
    in comments and string literals are left as written (a name with a newline filled into a
    ``--`` comment would otherwise end the comment and run as SQL).

    >>> sql("export/page_by_url", pages=quote("p"), url=quote("\n;DROP TABLE x;--"),
    ...     rowid="rowid").splitlines()[0]
    '-- The page id of a URL as stored by the crawler (lowest id when the URL is there twice).'
    """
    text = _sql_text(name)
    wanted = {m.group(1) for m in _TOKEN.finditer(text) if m.group(1)}
    missing = sorted(wanted - identifiers.keys())
    if missing:
        raise ValueError(f"sql/{name}.sql: placeholders not filled: {', '.join(missing)}")
    return _TOKEN.sub(lambda m: identifiers[m.group(1)] if m.group(1) else m.group(0), text)


def split_statements(script: str) -> list[str]:
    """Split an SQL script into complete statements (uses SQLite's own completeness test)."""
    out: list[str] = []
    buf = ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            stmt = buf.strip()
            if stmt and not all(
                ln.strip().startswith("--") or not ln.strip() for ln in stmt.splitlines()
            ):
                out.append(stmt)
            buf = ""
    if buf.strip() and not all(
        ln.strip().startswith("--") or not ln.strip() for ln in buf.splitlines()
    ):
        out.append(buf.strip())
    return out


def run_script(
    conn: sqlite3.Connection,
    name: str,
    params: Mapping[str, object] | None = None,
    **identifiers: str,
) -> None:
    """Run every statement of ``sql/<name>.sql`` (without ``executescript``'s implicit COMMIT).

    ``params`` are bound by name (``:name``) in every statement that uses them.
    """
    for statement in split_statements(sql(name, **identifiers)):
        conn.execute(statement, params or {})
