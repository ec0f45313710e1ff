"""Write ingested pages into the crawler's ``pages`` table, one file per transaction.

:class:`PageWriter` creates ``pages`` (``id INTEGER PRIMARY KEY`` and the ingest columns) or
appends to an existing one through the :class:`~webdedup.config.Columns` mapping, writing only
the mapped columns the table has and adding its own extra columns (``content_type``,
``status``, ``warc_record_id``, ``source_file``, ``extraction``; ``html`` with ``keep_html``)
when missing. The state tables ``_webdedup_ingested`` and ``_webdedup_ingest_files`` make a
second ingest of the same file add nothing.

Example::

    >>> from webdedup.store import connect
    >>> conn = connect(":memory:", must_exist=False)
    >>> w = PageWriter(conn, Columns())
    >>> w.prepare()
    >>> w.write([RawPage("http://x.org/", "k1", "a.warc", text="Hi", extraction="given")],
    ...         sha256="ab", path="a.warc", kind="warc", skipped=0, problems=0)
    1
    >>> w.has_record("k1")
    True
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

from ..config import Columns
from ..errors import ConfigError, MissingColumn
from ..store import quote, run_script, sql, table_columns, table_exists, transaction
from ..store.layout import Layout, refuse_own_table
from .charset import decode_html
from .model import RawPage

# The extra columns ingest owns (fixed names) and their types.
EXTRA_COLUMNS = {
    "content_type": "TEXT",
    "status": "INTEGER",
    "warc_record_id": "TEXT",
    "source_file": "TEXT",
    "extraction": "TEXT",
}
# Logical page fields written through the Columns mapping, when the table has them.
MAPPED_FIELDS = ("url", "title", "content", "datetime", "crawled")


class PageWriter:
    """Creates or adapts the pages table, and writes one file's pages in one transaction."""

    def __init__(self, conn: sqlite3.Connection, columns: Columns, keep_html: bool = False):
        self.conn = conn
        self.columns = columns
        self.keep_html = keep_html
        self.table = columns.table
        self.targets: dict[str, str] = {}  # logical field -> real column
        self.rowid = "rowid"  # how the table's rowid is named (Layout.rowid)
        self.ready = False  # the state tables exist (created by the first write)
        self.schema_done = False  # this writer created the tables and columns it needs
        self.committed = False  # a write of this writer was committed

    def prepare(self) -> None:
        """Check that the pages can go where they are asked to (nothing is written yet).

        The tables and columns ingest needs are created by the first :meth:`write`, in the
        same transaction as the first file's pages: an ingest that fails before leaves the
        database as it was.
        """
        c = self.columns
        refuse_own_table(self.table)
        self.ready = table_exists(self.conn, "_webdedup_ingest_files")
        if not table_exists(self.conn, self.table):
            self._check_new_table_names()
            self.targets = self._targets(dict.fromkeys(MAPPED_FIELDS) | {
                f: getattr(c, f) for f in MAPPED_FIELDS})
            return
        layout = Layout.resolve(self.conn, c, need_text=False)
        have = table_columns(self.conn, self.table)
        if c.content not in have:
            raise MissingColumn(
                f"table {self.table!r} has no content column {c.content!r}; columns "
                f"found: {', '.join(have)}. Map it with --column content=NAME"
            )
        self.rowid = layout.rowid
        self.targets = self._targets({f: getattr(layout, f) for f in MAPPED_FIELDS})

    def _check_new_table_names(self) -> None:
        """The table ingest would create needs one distinct column name per field."""
        c = self.columns
        names = ["id", *(getattr(c, f) for f in MAPPED_FIELDS), *EXTRA_COLUMNS]
        if self.keep_html:
            names.append(c.html)
        seen: dict[str, str] = {}
        for name in names:
            if name.lower() in seen:  # SQLite compares column names without case
                raise ConfigError(
                    f"the new table {self.table!r} would have two columns named "
                    f"{seen[name.lower()]!r}; map the fields to distinct names with --column "
                    f"(ingest also creates the columns id, {', '.join(EXTRA_COLUMNS)})"
                )
            seen[name.lower()] = name

    def _targets(self, mapped: dict[str, str | None]) -> dict[str, str]:
        targets = {f: real for f in MAPPED_FIELDS if (real := mapped.get(f))}
        targets.update({name: name for name in EXTRA_COLUMNS})
        if self.keep_html:
            targets["html"] = self.columns.html
        return targets

    def _create_schema(self) -> None:
        """The state tables, ``pages`` and the missing extra columns (inside a transaction)."""
        c = self.columns
        run_script(self.conn, "ingest/state")
        if not table_exists(self.conn, self.table):
            run_script(
                self.conn,
                "ingest/create_pages",
                table=quote(self.table),
                url=quote(c.url),
                title=quote(c.title),
                content=quote(c.content),
                datetime=quote(c.datetime),
                crawled=quote(c.crawled),
            )
        have = table_columns(self.conn, self.table)
        wanted = dict(EXTRA_COLUMNS)
        if self.keep_html:
            wanted[c.html] = "TEXT"
        for name, sqltype in wanted.items():
            if name not in have:
                run_script(
                    self.conn,
                    "ingest/add_column",
                    table=quote(self.table),
                    column=quote(name),
                    type=sqltype,
                )
        layout = Layout.resolve(self.conn, c, need_text=False)
        self.rowid = layout.rowid
        self.targets = self._targets({f: getattr(layout, f) for f in MAPPED_FIELDS})
        self.ready = self.schema_done = True

    # -- idempotency ----------------------------------------------------------------------
    def file_done(self, sha256: str) -> bool:
        """True when a file with this content was read to its end before."""
        if not self.ready:
            return False
        row = self.conn.execute(
            "SELECT 1 FROM _webdedup_ingest_files WHERE sha256 = ?", (sha256,)
        ).fetchone()
        return row is not None

    def has_record(self, key: str) -> bool:
        if not self.ready:
            return False
        row = self.conn.execute(
            "SELECT 1 FROM _webdedup_ingested WHERE record_key = ?", (key,)
        ).fetchone()
        return row is not None

    def has_legacy_record(self, page: RawPage) -> bool:
        """True when an older webdedup ingested this record under its legacy key."""
        if not self.ready or page.legacy_key is None:
            return False
        row = self.conn.execute(
            "SELECT 1 FROM _webdedup_ingested WHERE record_key = ? AND source_file = ?",
            (page.legacy_key, page.source_file),
        ).fetchone()
        return row is not None

    # -- revisits -------------------------------------------------------------------------
    def find_original(self, page: RawPage) -> dict[str, Any] | None:
        """The stored fields of the page a revisit refers to (from an earlier file), or None."""
        if not self.ready:
            return None
        row = self.conn.execute(
            sql("ingest/find_original", table=quote(self.table), rowid=quote(self.rowid)),
            (page.refers_to, page.refers_to_uri or page.url, page.refers_to_date,
             page.payload_digest, page.url),
        ).fetchone()
        if row is None:
            return None
        fields = [f for f in ("title", "content", "extraction", "content_type", "html")
                  if f in self.targets]
        got = self.conn.execute(
            sql(
                "ingest/page_fields",
                table=quote(self.table),
                rowid=quote(self.rowid),
                fields=", ".join(quote(self.targets[f]) for f in fields),
            ),
            (row[0],),
        ).fetchone()
        return dict(zip(fields, got, strict=True)) if got else None

    # -- writing --------------------------------------------------------------------------
    def _values(self, page: RawPage) -> list[Any]:
        html: str | None = (
            decode_html(page.html, page.content_type)
            if isinstance(page.html, bytes)
            else page.html
        )
        value = {
            "url": page.url,
            "title": page.title,
            "content": page.text or "",
            "datetime": page.datetime,
            "crawled": page.crawled,
            "content_type": page.content_type,
            "status": page.status,
            "warc_record_id": page.warc_record_id,
            "source_file": page.source_file,
            "extraction": page.extraction,
            "html": html,
        }
        return [value[f] for f in self.targets]

    def write(
        self,
        pages: Sequence[RawPage],
        *,
        sha256: str | None,
        path: str,
        kind: str,
        skipped: int,
        problems: int,
    ) -> int:
        """Insert ``pages`` and record them (and the file) in one transaction; return the count.

        A record already ingested (by a concurrent run, say) is left out.
        """
        record = sql("ingest/record_page")
        written = 0
        with transaction(self.conn):
            if not self.schema_done:
                self._create_schema()  # with the first file's pages, in one transaction
            insert = sql(
                "ingest/insert_page",
                table=quote(self.table),
                columns=", ".join(quote(c) for c in self.targets.values()),
                values=", ".join("?" for _ in self.targets),
            )
            for page in pages:
                if self.has_record(page.record_key):
                    continue
                cur = self.conn.execute(insert, self._values(page))
                self.conn.execute(
                    record,
                    (page.record_key, sha256, page.source_file, page.offset, cur.lastrowid,
                     page.url, page.crawled, page.payload_digest),
                )
                written += 1
            if sha256 is not None:
                self.conn.execute(
                    sql("ingest/record_file"),
                    (sha256, path, kind, datetime.now(timezone.utc).isoformat(timespec="seconds"),
                     written, skipped, problems),
                )
        self.committed = True
        return written
