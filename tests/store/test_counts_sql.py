"""``sql/counts.sql`` counts the groups by kind of ``sql/group_kinds.sql`` (the definition)
its own way (kind by kind down _webdedup_group_kinds): both, and a plain Python reading of the
definition, agree on any table of group columns a run writes (every page but an ignored
one has a group: sql/assign.sql)."""

from __future__ import annotations

import sqlite3
from collections import defaultdict

from hypothesis import given, settings
from hypothesis import strategies as st

from webdedup.store.counts import KINDS, count, groups_subquery
from webdedup.store.migrations import migrate
from webdedup.store.sqlfiles import run_script, sql

ROW = st.tuples(
    st.integers(1, 12),  # dup_group
    st.sampled_from([None, None, "url", "exact", "near", "ignored", "thin"]),
)


def table(rows: list[tuple[int, str | None]]) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, url TEXT)")
    migrate(conn)  # _webdedup_groups and its tables by group and by kind, as a run leaves them
    conn.executemany("INSERT INTO pages (url) VALUES (?)", [("u",)] * len(rows))
    conn.executemany(
        "INSERT INTO _webdedup_groups (dup_group, dup_kind, is_canonical) VALUES (?, ?, ?)",
        [(None if k == "ignored" else g, k, int(k is None or k == "thin")) for g, k in rows],
    )
    run_script(conn, "group_keys_add", ids="SELECT id FROM main._webdedup_groups")
    return conn


@settings(max_examples=100, deadline=None)
@given(st.lists(ROW, max_size=40))
def test_groups_by_kind_are_the_definitions(rows):
    conn = table(rows)
    got = count(conn, "pages")
    defined = dict(conn.execute(f"SELECT kind, count(*) FROM {groups_subquery()} GROUP BY kind"))
    (dups,) = conn.execute(f"SELECT coalesce(sum(duplicates), 0) FROM {groups_subquery()}"
                           ).fetchone()
    conn.close()
    # the definition in words: a group's kind is the loosest link among its duplicates
    members: dict[int, set[str]] = defaultdict(set)
    for g, k in rows:
        if k in KINDS:
            members[g].add(k)
    loosest = [next(k for k in reversed(KINDS) if k in ks) for ks in members.values()]
    for kind in KINDS:
        assert getattr(got, f"{kind}_groups") == defined.get(kind, 0) == loosest.count(kind)
        assert getattr(got, f"{kind}_duplicates") == sum(k == kind for _, k in rows)
    assert got.groups == len(members) == sum(defined.values())
    assert got.duplicates == dups == sum(k in KINDS for _, k in rows)
    assert got.pages == len(rows) and got.ignored == sum(k == "ignored" for _, k in rows)
    assert got.thin == sum(k == "thin" for _, k in rows)
    assert got.unique + got.groups == sum(k is None or k == "thin" for _, k in rows)


@settings(max_examples=60, deadline=None)
@given(st.lists(ROW, max_size=40))
def test_the_pages_by_kind_of_stats_are_the_groups_rows_by_kind(rows):
    """``sql/stats/kinds.sql`` counts from the tables by group and by kind what grouping
    ``_webdedup_groups`` by ``dup_kind`` counts."""
    conn = table(rows)
    got = {k: n for k, n in conn.execute(sql("stats/kinds")) if n > 0}  # (as stats reads it)
    conn.close()
    want: dict[str, int] = defaultdict(int)
    for _, k in rows:
        want[k or "canonical"] += 1
    assert got == want


def test_the_group_counts_read_the_kinds_table_with_no_sort():
    conn = table([(1, None), (1, "near"), (2, None), (2, "url")])
    plan = " ".join(r[3] for r in conn.execute(
        "EXPLAIN QUERY PLAN " + sql("counts", pages_count="4")))
    conn.close()
    assert "TEMP B-TREE" not in plan, plan
