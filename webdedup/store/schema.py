"""webdedup's names in a crawl database: output columns, state tables, triggers.

The one module that says what webdedup adds to a database: the output columns on the
crawler's table (with the index that keeps counting them cheap), the prefixed state tables,
and (in :mod:`.triggers`) the change-tracking triggers that queue changed page ids for the
next run. Which of the output columns on a table are webdedup's and which the crawler's is
read and recorded with the rest of the crawler's table, in :mod:`.layout`.
"""

from __future__ import annotations

import sqlite3

from .tables import add_column, table_columns

#: webdedup's state tables (created by the migrations in ``sql/migrations/``).
STATE_TABLES = (
    "_webdedup_meta",
    "_webdedup_runs",
    "_webdedup_changes",
    "_webdedup_prepared",
    "_webdedup_url_keys",
    "_webdedup_content_hashes",
    "_webdedup_hosts",
    "_webdedup_sketches",
    "_webdedup_edges",
    "_webdedup_verified",
    "_webdedup_nodes",
    "_webdedup_verdicts",
    "_webdedup_page_segments",
    "_webdedup_segments",
    "_webdedup_thin",
    "_webdedup_groups",
    "_webdedup_group_members",
    "_webdedup_group_kinds",
    "_webdedup_sketch_blocks",
    "_webdedup_sketch_stale",
)
#: The tables an annotated database must have for ``export``, ``explain`` and ``stats``.
RESULT_TABLES = ("_webdedup_meta", "_webdedup_runs", "_webdedup_prepared", "_webdedup_edges")

#: The columns webdedup adds to ``pages``, with their SQL types.
OUTPUT_COLUMNS: dict[str, str] = {
    "canonical_url": "TEXT",
    "content_hash": "TEXT",
    "exact_group_size": "INTEGER",
    "dup_group": "INTEGER",
    "dup_group_size": "INTEGER",
    "canonical_id": "INTEGER",
    "is_canonical": "INTEGER",
    "dup_kind": "TEXT",
    "dup_score": "REAL",
}

#: The comment on each output column's declaration (``dup_group INTEGER /* webdedup */`` in the
#: table's schema): how a later run knows the columns are webdedup's when its state is gone.
OUTPUT_MARK = "webdedup"

PRUNED_TABLE = "_webdedup_pruned"
#: Each annotated page's group, kind and canonical flag (schema 11): what counts them reads.
GROUPS_TABLE = "_webdedup_groups"
#: Its rows by group and by kind (schema 14): what the group lists and counts look up.
GROUP_MEMBERS_TABLE = "_webdedup_group_members"
#: What the counts, group lists and review read (an older state lacks some: upgraded by a run).
GROUP_TABLES = (GROUPS_TABLE, GROUP_MEMBERS_TABLE, "_webdedup_group_kinds")


def add_output_columns(conn: sqlite3.Connection, table: str) -> list[str]:
    """``ALTER TABLE ... ADD COLUMN`` for each missing output column; returns those added.

    No index on them: building one reads every row of the table, texts included, inside
    the write lock (seconds at a million pages); what counts them reads
    ``_webdedup_groups`` (databases annotated before schema 11 keep the index they have).
    Each column's declaration carries :data:`OUTPUT_MARK` as a comment.
    """
    have = set(table_columns(conn, table))
    added = []
    for name, kind in OUTPUT_COLUMNS.items():
        if name not in have:
            add_column(conn, table, name, kind, comment=OUTPUT_MARK)
            added.append(name)
    return added


#: Output columns a crawler may own: webdedup then leaves them as they are (the API webdedup
#: follows stores the SHA-1 of its ``parsed`` text in ``content_hash``) and keeps its own value
#: in its state (``_webdedup_prepared``). Any other foreign output column is refused.
CRAWLER_MAY_OWN = ("content_hash",)
