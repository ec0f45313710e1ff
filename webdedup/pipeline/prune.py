"""Pruning (``db --prune``) and restoring (``webdedup restore``) the non-canonical pages.

Nothing is deleted unless the user asks; a pruned row keeps its original rowid and every
column in ``_webdedup_pruned``, from which :func:`restore_pruned` puts it back.

:func:`keep_winners` is what calling a ``Deduplicator`` on a database does, as in the API
webdedup follows: only the winners stay in ``pages`` (the others pruned, restorably), with
their URL in canonical form and ``domain`` filled; the values it replaced are kept in
``_webdedup_rewritten``, which :func:`restore` puts back too.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from ..algorithms.urls import unwrap_archive_url, url_hash
from ..config import Columns
from ..errors import InputError, NoPagesTable, RestoreConflict
from ..store import (
    connect,
    integer_primary_key,
    quote,
    run_script,
    sql,
    table_columns,
    table_exists,
    transaction,
    use_wal,
)
from ..store.layout import Layout, refuse_own_table, rowid_alias
from ..store.schema import GROUP_MEMBERS_TABLE, GROUPS_TABLE, PRUNED_TABLE
from ..store.state import stored_columns
from ..words import plural

#: Where :func:`keep_winners` keeps the ``url``, ``domain`` and ``wayback`` it replaced.
REWRITTEN_TABLE = "_webdedup_rewritten"
#: The columns of the API webdedup follows that :func:`keep_winners` fills when present.
DOMAIN, WAYBACK = "domain", "wayback"


def restore_pruned(
    db: str | Path | sqlite3.Connection,
    table: str = "pages",
    *,
    busy_timeout: float = 5.0,
    on_message: Callable[[str], None] | None = None,
) -> int:
    """Move every row of ``_webdedup_pruned`` back into ``table``; returns how many (the
    URLs a ``Deduplicator`` call rewrote are put back too: :func:`keep_winners`).

    Example::

        >>> restore_pruned("crawl.sqlite")  # doctest: +SKIP
        42
    """
    refuse_own_table(table)
    conn = connect(db, busy_timeout=busy_timeout)
    try:
        if not table_exists(conn, table):
            raise NoPagesTable(f"no table {table!r} to restore pruned pages into")
        if not table_exists(conn, PRUNED_TABLE) and not table_exists(conn, REWRITTEN_TABLE):
            return 0
        if not isinstance(db, sqlite3.Connection):
            use_wal(conn, busy_timeout)
        notes: list[str] = []
        with transaction(conn):
            n = restore(conn, table, notes)
        for note in notes:
            if on_message is not None:
                on_message(note)
        return n
    finally:
        if not isinstance(db, sqlite3.Connection):
            conn.close()


#: The pruned table's own columns: a copy's handle (a page pruned twice, its id reused by
#: the crawler in between, has two copies), the page's rowid, and when it was pruned.
OWN_COLUMNS = ("_pruned_seq", "_rowid", "_pruned_at")


def prune(conn: sqlite3.Connection, table: str, where: str = "is_canonical = 0") -> int:
    """Move every non-canonical annotated row of ``table`` (or those of ``where``, an SQL
    condition on its rows) into ``_webdedup_pruned``.

    The side table keeps the original rowid and every column, so :func:`restore` can put the
    rows back. Each pruned row is a copy of its own (``_pruned_seq``): when the crawler
    reuses a pruned page's id and that page is pruned too, both copies are kept, and
    :func:`restore` asks which one goes back. Call inside the write transaction, after
    :func:`run`.
    """
    cols = table_columns(conn, table)
    taken = [c for c in cols if c.lower() in OWN_COLUMNS]
    if taken:
        raise InputError(
            f"table {table!r} has a column named {taken[0]!r}, which _webdedup_pruned uses for "
            "its own bookkeeping; rename that column to use --prune"
        )
    if not table_exists(conn, PRUNED_TABLE):
        _create_pruned(conn, cols)
    else:
        if integer_primary_key(conn, PRUNED_TABLE) == "_rowid":
            _one_row_per_copy(conn)
        have = set(table_columns(conn, PRUNED_TABLE))
        for c in cols:
            if c not in have:
                conn.execute(f"ALTER TABLE {quote(PRUNED_TABLE)} ADD COLUMN {quote(c)}")
    col_list = ", ".join(quote(c) for c in cols)
    # a thin page is never pruned: it is its own canonical, and "IS NOT" keeps one even if
    # that ever changed (and against a caller's own condition)
    where = f"({where}) AND dup_kind IS NOT 'thin'"
    rowid = quote(rowid_alias(conn, table))
    # the rows found once (a pass over the table, texts included), then looked up by rowid
    conn.execute("DROP TABLE IF EXISTS temp.run_pruned_ids")
    conn.execute("CREATE TEMP TABLE run_pruned_ids (id INTEGER PRIMARY KEY)")
    conn.execute(f"INSERT INTO temp.run_pruned_ids SELECT {rowid} FROM {quote(table)} "
                 f"WHERE {where}")
    ids = "SELECT id FROM temp.run_pruned_ids"
    conn.execute(
        f"INSERT INTO {quote(PRUNED_TABLE)} (_rowid, _pruned_at, {col_list}) "
        f"SELECT {rowid}, datetime('now'), {col_list} FROM {quote(table)} "
        f"WHERE {rowid} IN ({ids})"
    )
    if table_exists(conn, GROUPS_TABLE):  # pruned pages leave the counts and group lists
        _group_keys(conn, "group_keys_drop", ids)
        conn.execute(f"DELETE FROM {GROUPS_TABLE} WHERE id IN ({ids})")
    cur = conn.execute(f"DELETE FROM {quote(table)} WHERE {rowid} IN ({ids})")
    conn.execute("DROP TABLE temp.run_pruned_ids")
    return cur.rowcount


def _create_pruned(conn: sqlite3.Connection, cols: list[str], name: str = PRUNED_TABLE) -> None:
    col_defs = "".join(f", {quote(c)}" for c in cols)
    conn.execute(
        f"CREATE TABLE {quote(name)} (_pruned_seq INTEGER PRIMARY KEY, "
        f"_rowid INTEGER NOT NULL, _pruned_at TEXT NOT NULL{col_defs})"
    )


def _one_row_per_copy(conn: sqlite3.Connection) -> None:
    """Rebuild an older webdedup's pruned table, keyed by the page's rowid (one copy an id:
    pruning a reused id failed on its ``UNIQUE`` constraint), as :func:`_create_pruned` makes
    it. In the write transaction; the rows keep their order."""
    cols = [c for c in table_columns(conn, PRUNED_TABLE)
            if c.lower() not in ("_rowid", "_pruned_at")]
    taken = [c for c in cols if c.lower() in OWN_COLUMNS]
    if taken:
        raise InputError(
            f"{PRUNED_TABLE} holds a column named {taken[0]!r} (the pages' own), which this "
            "version's pruned table uses for its own bookkeeping: rename it there (ALTER "
            f"TABLE {PRUNED_TABLE} RENAME COLUMN {quote(taken[0])} TO ...) and in the pages "
            "table, then run again"
        )
    staging = f"{PRUNED_TABLE}_rebuilt"
    conn.execute(f"DROP TABLE IF EXISTS {quote(staging)}")
    _create_pruned(conn, cols, staging)
    col_list = "".join(f", {quote(c)}" for c in cols)
    conn.execute(
        f"INSERT INTO {quote(staging)} (_rowid, _pruned_at{col_list}) "
        f"SELECT _rowid, _pruned_at{col_list} FROM {quote(PRUNED_TABLE)} ORDER BY _rowid"
    )
    conn.execute(f"DROP TABLE {quote(PRUNED_TABLE)}")
    conn.execute(f"ALTER TABLE {quote(staging)} RENAME TO {quote(PRUNED_TABLE)}")


def keep_winners(conn: sqlite3.Connection, layout: Layout) -> tuple[int, int]:
    """Leave only the winners in the pages table, as that API's call does; returns the rows
    pruned and the rows rewritten. Call inside the write transaction, after phase 5.

    The losers (``sql/winners_losers.sql``) are pruned into ``_webdedup_pruned``; each winner
    gets its canonical URL in the URL column, its host in ``domain`` and, for a web archive
    URL, that URL in ``wayback`` (an empty one), when the table has those columns. A row whose
    URL changed since the run read it is left as it is.
    """
    table, rowid = quote(layout.table), quote(layout.rowid)
    run_script(conn, "winners_losers", pages=table, rowid=rowid)
    pruned = prune(conn, layout.table, f"{rowid} IN (SELECT id FROM temp.run_losers)")
    conn.execute("DROP TABLE temp.run_losers")
    have = set(table_columns(conn, layout.table))
    domain = quote(DOMAIN) if DOMAIN in have else "NULL"
    wayback = quote(WAYBACK) if WAYBACK in have else "NULL"
    rows = conn.execute(
        sql("winners_rewrite", pages=table, rowid=rowid, url=quote(layout.url),
            domain=domain, wayback=wayback)
    ).fetchall()
    changes = []
    for page_id, url, hashed, canonical, host, old_domain, old_wayback in rows:
        if url_hash(url) != hashed:  # the crawler changed it meanwhile: the next run's
            continue
        new_domain = host if DOMAIN in have else None
        new_wayback = old_wayback
        if WAYBACK in have and not old_wayback and unwrap_archive_url(url) != url:
            new_wayback = url
        if (url, old_domain, old_wayback) != (canonical, new_domain, new_wayback):
            changes.append((page_id, url, old_domain, old_wayback, canonical, new_domain,
                            new_wayback))
    if not changes:
        return pruned, 0
    conn.execute(
        f"CREATE TABLE IF NOT EXISTS {quote(REWRITTEN_TABLE)} (id INTEGER PRIMARY KEY, "
        "url, domain, wayback, new_url)"
    )
    conn.executemany(  # the first original stays: a second call rewrites nothing more
        f"INSERT OR IGNORE INTO {quote(REWRITTEN_TABLE)} (id, url, domain, wayback, new_url) "
        "VALUES (?, ?, ?, ?, ?)",
        [c[:5] for c in changes],
    )
    sets = [f"{quote(layout.url)} = ?"]
    sets += [f"{quote(c)} = ?" for c in (DOMAIN, WAYBACK) if c in have]
    update = f"UPDATE {table} SET {', '.join(sets)} WHERE {rowid} = ?"
    conn.executemany(
        update,
        [
            (c[4], *([c[5]] if DOMAIN in have else []), *([c[6]] if WAYBACK in have else []),
             c[0])
            for c in changes
        ],
    )
    return pruned, len(changes)


def _unrewrite(conn: sqlite3.Connection, table: str) -> int:
    """Put back the URLs, domains and wayback URLs :func:`keep_winners` replaced (of the rows
    that still hold the URL it wrote); returns the rows."""
    if not table_exists(conn, REWRITTEN_TABLE):
        return 0
    layout = Layout.resolve(conn, _url_columns(conn, table), need_text=False)
    have = set(table_columns(conn, table))
    sets = [f"{quote(layout.url)} = r.url"]
    sets += [f"{quote(c)} = r.{quote(c)}" for c in (DOMAIN, WAYBACK) if c in have]
    t, url, rowid = quote(table), quote(layout.url), quote(layout.rowid)
    update = f"UPDATE {t} SET {', '.join(sets)} FROM {quote(REWRITTEN_TABLE)} AS r WHERE "
    # the row under its id; then, for a table without an INTEGER PRIMARY KEY renumbered
    # since (a VACUUM), the row that holds the URL written (one a winner: canonical URLs of
    # winners are distinct). With an INTEGER PRIMARY KEY ids stay, and a row under another id
    # that holds that URL is the crawler's newer row: left alone.
    n = conn.execute(f"{update}{t}.{rowid} = r.id AND {t}.{url} IS r.new_url").rowcount
    conn.execute(
        f"DELETE FROM {quote(REWRITTEN_TABLE)} WHERE EXISTS (SELECT 1 FROM {t} "
        f"WHERE {t}.{rowid} = {quote(REWRITTEN_TABLE)}.id "
        f"AND {t}.{url} IS {quote(REWRITTEN_TABLE)}.url)"
    )
    if integer_primary_key(conn, table) is None:  # only rowids move (VACUUM): ids are kept
        n += conn.execute(f"{update}{t}.{url} = r.new_url").rowcount
    conn.execute(f"DROP TABLE {quote(REWRITTEN_TABLE)}")
    return n


def _url_columns(conn: sqlite3.Connection, table: str) -> Columns:
    """The table's column mapping as the last run stored it (its URL column)."""
    stored = stored_columns(conn)
    if stored.get("table", "pages") == table:
        return Columns.from_mapping(stored)
    return Columns(table=table)


def restore(conn: sqlite3.Connection, table: str, notes: list[str] | None = None) -> int:
    """Put every pruned row back into ``table`` under its original rowid; returns the count.

    Columns that ``table`` no longer has are dropped. Call inside the write transaction: when
    a row can't go back under its id (the crawler wrote a new page under it since the prune,
    or re-crawled its URL into a ``UNIQUE`` column...), :class:`RestoreConflict` lists every
    such row and why, and the transaction is rolled back: nothing was written. A row is never
    restored under another id, and a constraint's ``ON CONFLICT REPLACE`` never deletes the
    crawler's newer row (the rows go in ``INSERT OR ABORT``). A page pruned twice (the crawler
    reused its id in between) has two copies: the conflict lists both, to drop the one not
    wanted back.
    The URLs, domains and wayback URLs :func:`keep_winners` replaced are put back first.
    A table without an ``INTEGER PRIMARY KEY`` has no stable ids (``VACUUM`` renumbers its
    rowids): a pruned row whose rowid another row holds goes back under a fresh rowid, and
    ``notes`` gets one line saying how many did.
    """
    _unrewrite(conn, table)
    if not table_exists(conn, PRUNED_TABLE):
        return 0
    if integer_primary_key(conn, PRUNED_TABLE) == "_rowid":
        _one_row_per_copy(conn)
    pruned_cols = set(table_columns(conn, PRUNED_TABLE))
    cols = [c for c in table_columns(conn, table) if c in pruned_cols]
    pk = integer_primary_key(conn, table)
    alias = rowid_alias(conn, table)
    names = cols if pk in cols else [alias, *cols]
    insert = (
        f"INSERT OR ABORT INTO {quote(table)} ({', '.join(quote(c) for c in names)}) "
        f"VALUES ({', '.join('?' * len(names))})"
    )
    url = next((c for c in cols if c.lower() == "url"), None)
    shown = f"{quote(url)}" if url else "NULL"
    conflicts: list[str] = []
    refused: list[int] = []
    restored = renumbered = 0
    rows = conn.execute(
        f"SELECT _pruned_seq, _rowid, {', '.join(quote(c) for c in cols)} "
        f"FROM {quote(PRUNED_TABLE)} ORDER BY _rowid, _pruned_seq"
    ).fetchall()
    when = dict(conn.execute(f"SELECT _pruned_seq, _pruned_at FROM {quote(PRUNED_TABLE)}"))
    copies: dict[int, list[tuple[int, str]]] = {}
    for seq, rowid, *values in rows:
        shown_url = f"{values[cols.index(url)]}, " if url else ""
        copies.setdefault(rowid, []).append((seq, f" ({shown_url}pruned {when[seq]})"))
    for seq, rowid, *values in rows:
        page = f"page {rowid}" + (f" ({values[cols.index(url)]})" if url else "")
        twice = copies[rowid]
        if pk is not None and len(twice) > 1:  # only one of them can have the id back
            if seq == twice[0][0]:
                each = ", ".join(f"{s}{about}" for s, about in twice)
                conflicts.append(
                    f"page {rowid}: pruned {len(twice)} times, the crawler reusing its id in "
                    f"between; only one copy can go back under it (copies {each}; the "
                    "statement below keeps the last)"
                )
            if seq != twice[-1][0]:  # the DELETE below keeps the last copy
                refused.append(seq)
            continue
        holder = conn.execute(
            f"SELECT {shown} FROM {quote(table)} WHERE {quote(alias)} = ?", (rowid,)
        ).fetchone()
        if holder is not None and pk is None:  # no stable ids: a fresh rowid
            try:
                conn.execute(
                    f"INSERT OR ABORT INTO {quote(table)} ({', '.join(quote(c) for c in cols)}) "
                    f"VALUES ({', '.join('?' * len(cols))})",
                    values,
                )
            except sqlite3.IntegrityError as exc:
                conflicts.append(f"{page}: {exc}"
                                 f"{_holder(conn, table, alias, exc, cols, values)}")
                refused.append(seq)
                continue
            renumbered += 1
            restored += 1
            continue
        if holder is not None:
            now = f" (now {holder[0]})" if url else ""
            conflicts.append(f"{page}: its id is taken by a row written since the prune{now}")
            refused.append(seq)
            continue
        try:
            conn.execute(insert, values if pk in cols else [rowid, *values])
        except sqlite3.IntegrityError as exc:
            if not conn.in_transaction:  # a trigger's RAISE(ROLLBACK): all was undone
                raise RestoreConflict(f"{page} can't be restored ({exc}); nothing was "
                                      "restored") from exc
            conflicts.append(f"{page}: {exc}{_holder(conn, table, alias, exc, cols, values)}")
            refused.append(seq)
            continue
        restored += 1
    if conflicts:
        ids = ", ".join(map(str, refused[:MAX_LISTED])) + (", ..." if len(refused) > MAX_LISTED
                                                             else "")
        listed = conflicts[:MAX_LISTED] + (
            [f"... and {len(conflicts) - MAX_LISTED:,} more"] if len(conflicts) > MAX_LISTED
            else []
        )
        raise RestoreConflict(
            f"{len(conflicts):,} of the {len(copies):,} pruned pages can't go back under their "
            "ids, so nothing was restored:\n  " + "\n  ".join(listed) + "\nRemove (or "
            f"change) the crawler's newer rows, or drop the pruned copies you don't want "
            f"back (DELETE FROM {PRUNED_TABLE} WHERE _pruned_seq IN ({ids})), then run "
            "restore again"
        )
    _regroup(conn, table, alias)
    conn.execute(f"DELETE FROM {quote(PRUNED_TABLE)}")
    if renumbered and notes is not None:
        notes.append(
            f"{plural(renumbered, 'page')} went back under a new rowid: {table!r} has no "
            "INTEGER PRIMARY KEY, so its rowids are not stable ids (VACUUM renumbers them), "
            "and another row holds the old one"
        )
    return restored


def _regroup(conn: sqlite3.Connection, table: str, alias: str) -> None:
    """The restored pages' groups back into ``_webdedup_groups`` (those back under their own
    ids: one that went back under a new rowid counts as not annotated until the next run)."""
    names = set(table_columns(conn, table))
    if not table_exists(conn, GROUPS_TABLE) or not {"dup_group", "dup_kind"} <= names:
        return
    rowid = quote(alias)
    score = "p.dup_score" if "dup_score" in names else "NULL"
    ids = (f"SELECT p.{rowid} FROM {quote(table)} AS p "
           f"WHERE p.{rowid} IN (SELECT _rowid FROM {quote(PRUNED_TABLE)})")
    _group_keys(conn, "group_keys_drop", ids)  # (rows replaced: their key rows first)
    conn.execute(
        f"INSERT OR REPLACE INTO {GROUPS_TABLE} (id, dup_group, dup_kind, is_canonical, "
        f"dup_score) SELECT p.{rowid}, p.dup_group, p.dup_kind, p.is_canonical, {score} "
        f"FROM {quote(table)} AS p "
        f"WHERE p.{rowid} IN (SELECT _rowid FROM {quote(PRUNED_TABLE)}) "
        "AND (p.dup_group IS NOT NULL OR p.dup_kind IS NOT NULL)"
    )
    _group_keys(conn, "group_keys_add", ids)


def _group_keys(conn: sqlite3.Connection, script: str, ids: str) -> None:
    """``group_keys_drop`` or ``group_keys_add`` for the pages ``ids`` (a subquery), where the
    state has the group and kind tables (schema 14; a database pruned before any run of it
    has not)."""
    if table_exists(conn, GROUP_MEMBERS_TABLE):
        run_script(conn, script, ids=ids)


#: Conflicts a refused ``restore`` lists one by one (the rest are counted).
MAX_LISTED = 20


def _holder(
    conn: sqlite3.Connection,
    table: str,
    alias: str,
    exc: sqlite3.IntegrityError,
    cols: list[str],
    values: list[object],
) -> str:
    """" (row N holds that value)" for a ``UNIQUE constraint failed: t.a, t.b`` on plain
    columns; "" when SQLite's message names no columns (an index on expressions...)."""
    _, _, failed = str(exc).partition("UNIQUE constraint failed: ")
    if not failed:
        return ""
    unique = [part.strip().rpartition(".")[2] for part in failed.split(",")]
    if not all(c in cols for c in unique):
        return ""
    where = " AND ".join(f"{quote(c)} = ?" for c in unique)
    row = conn.execute(
        f"SELECT {quote(alias)} FROM {quote(table)} WHERE {where} LIMIT 1",
        [values[cols.index(c)] for c in unique],
    ).fetchone()
    return f" (row {row[0]} holds that value)" if row else ""
