"""The SQLite store, at the bottom of webdedup: everything that talks to the database file.

- :mod:`.connection` opens (or adopts) a connection, runs transactions, translates errors;
- :mod:`.sqlfiles` loads SQL from ``sql/`` by name and quotes identifiers (the one way a name
  from an option enters SQL);
- :mod:`.migrations` creates and upgrades webdedup's state tables;
- :mod:`.tables` answers questions about tables and columns, and adds columns;
- :mod:`.schema` names webdedup's output columns, state tables and triggers;
- :mod:`.layout` resolves where the pages are (the table and its real column names);
- :mod:`.state` reads what earlier runs stored (configuration, meta values);
- :mod:`.pages` reads the crawler's pages through a layout;
- :mod:`.work` writes sketches and band keys into a run's TEMP work tables;
- :mod:`.spool` keeps what ``--method vectors`` verifies each text on in a temporary file.

Example::

    >>> conn = connect(":memory:", must_exist=False)
    >>> table_exists(conn, "pages")
    False
"""

from __future__ import annotations

from .connection import (
    MIN_SQLITE,
    connect,
    decode_text,
    lenient_text,
    refuse_database_paths,
    transaction,
    translate,
    use_wal,
)
from .migrations import check_schema, latest_schema_version, migrate, schema_version
from .sqlfiles import quote, run_script, split_statements, sql
from .tables import integer_primary_key, is_without_rowid, table_columns, table_exists

__all__ = [
    "MIN_SQLITE",
    "check_schema",
    "connect",
    "decode_text",
    "integer_primary_key",
    "is_without_rowid",
    "latest_schema_version",
    "lenient_text",
    "migrate",
    "quote",
    "refuse_database_paths",
    "run_script",
    "schema_version",
    "split_statements",
    "sql",
    "table_columns",
    "table_exists",
    "transaction",
    "translate",
    "use_wal",
]
