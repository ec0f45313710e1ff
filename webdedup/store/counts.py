"""The one vocabulary of webdedup's counts: group, duplicate, kind, unique page.

Every number ``webdedup db``, ``stats`` and ``export`` (JSON, CSV, HTML) print is one of
these, read from the annotated pages table through this module:

- a **duplicate** is a page that joined another page's group: its ``dup_kind`` is ``url``
  (same canonical URL as the page that won that URL's election: a re-crawl or a URL
  variant), ``exact`` (same normalized text) or ``near`` (a verified near-duplicate);
- a **group** is a set of two or more pages that webdedup says are duplicates of one
  **canonical** (``is_canonical = 1``): the canonical and its duplicates, sharing a
  ``dup_group``. A page alone in its ``dup_group`` is a **unique** page, not a group;
- the **kind of a group** is the loosest link among its duplicates: ``near`` when any
  duplicate is near, else ``exact`` when any is exact, else ``url``. A group of three URL
  re-crawls and one near copy is one *near* group holding three *url* duplicates and one
  *near* duplicate. So groups by kind add up to the groups, duplicates by kind add up to
  the duplicates, and

      pages = unique + groups (their canonicals) + duplicates + ignored (+ not annotated)

  where *ignored* pages match ``urls_to_ignore`` or a small host (``n_min``) and *not
  annotated* pages were added after the last run;
- a **thin** page (``dup_kind`` ``thin``) has too little content of its own (its text
  without the lines its host repeats: :mod:`webdedup.algorithms.own`) to be a duplicate of
  anything by content: it is the canonical of its own group (unique, or with its URL
  duplicates), counted among the unique pages and canonicals, and ``thin`` counts it again.

The SQL is ``sql/group_kinds.sql`` (one row a group with its kind: the definition) and
``sql/counts.sql`` (the totals: its groups by kind are the definition's, counted kind by kind
down ``_webdedup_group_kinds`` rather than sorted group by group); both read each annotated
page's group columns in webdedup's state (``_webdedup_groups``, and its rows by group and
by kind in ``_webdedup_group_members`` and ``_webdedup_group_kinds``), which phase 5 writes
with the annotations (never the pages' texts).

Example::

    >>> import sqlite3
    >>> conn = sqlite3.connect(":memory:")
    >>> _ = conn.execute("CREATE TABLE pages (url)")   # the crawler's table
    >>> _ = conn.executemany("INSERT INTO pages VALUES (?)", [("u",)] * 7)
    >>> from webdedup.store import migrate, run_script
    >>> migrate(conn)  # webdedup's state tables (the latest schema)
    15
    >>> _ = conn.executemany("INSERT INTO _webdedup_groups (dup_group, dup_kind, "
    ...                      "is_canonical) VALUES (?, ?, ?)", [
    ...     (1, None, 1), (1, "url", 0), (1, "near", 0),   # a near group
    ...     (2, None, 1), (2, "url", 0),                   # a url group
    ...     (3, None, 1), (None, "ignored", None)])        # a unique page, an ignored one
    >>> run_script(conn, "group_keys_add", ids="SELECT id FROM _webdedup_groups")  # by group, kind
    >>> c = count(conn, "pages")
    >>> (c.groups, c.near_groups, c.url_groups, c.duplicates, c.url_duplicates, c.unique)
    (2, 1, 1, 3, 2, 1)
    >>> print(*c.line().split("; "), sep="\\n")
    7 pages: 2 groups (1 URL, 0 exact, 1 near) holding 3 duplicates (2 URL, 0 exact, 1 near)
    1 unique
    1 ignored
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields

from ..words import plural
from .sqlfiles import quote, sql

#: The kinds of duplicates and of groups, tightest link first.
KINDS = ("url", "exact", "near")


def groups_subquery() -> str:
    """``sql/group_kinds.sql`` as a parenthesized subquery (it reads ``_webdedup_group_kinds``).

    Columns: ``dup_group``, ``kind``, ``duplicates``, ``size``. Fill it into an SQL file's
    ``{groups}`` placeholder; it is the one definition of a group and of its kind.
    """
    return "(\n" + sql("group_kinds").strip().rstrip(";") + "\n)"


@dataclass(frozen=True)
class Counts:
    """Pages, groups and duplicates of an annotated table (see the module's vocabulary)."""

    pages: int
    ignored: int
    unique: int
    not_annotated: int
    groups: int
    url_groups: int
    exact_groups: int
    near_groups: int
    duplicates: int
    url_duplicates: int
    exact_duplicates: int
    near_duplicates: int
    thin: int = 0  #: thin pages (among the unique pages and the groups' canonicals)

    def as_dict(self) -> dict[str, int]:
        return asdict(self)

    @classmethod
    def from_mapping(cls, values: Mapping[str, int]) -> Counts:
        """The counts among ``values`` (other keys, such as a report's extras, are left)."""
        return cls(**{f.name: int(values[f.name]) for f in fields(cls) if f.name in values})

    def line(self) -> str:
        """One human line: groups by kind, duplicates by kind, unique and ignored pages."""
        out = (
            f"{plural(self.pages, 'page')}: {plural(self.groups, 'group')} "
            f"({self.url_groups:,} URL, {self.exact_groups:,} exact, {self.near_groups:,} near) "
            f"holding {plural(self.duplicates, 'duplicate')} ({self.url_duplicates:,} URL, "
            f"{self.exact_duplicates:,} exact, {self.near_duplicates:,} near); "
            f"{self.unique:,} unique; {self.ignored:,} ignored"
        )
        if self.thin:
            out += f"; {self.thin:,} thin (no content of their own)"
        if self.not_annotated:
            out += f"; {self.not_annotated:,} added since the last run"
        return out


def count(conn: sqlite3.Connection, table: str, pages: int | None = None) -> Counts:
    """The :class:`Counts` of the annotated table ``table`` (a plain, unquoted name).

    ``pages``: how many pages the table holds, when the caller knows (a run does); else they
    are counted, which reads the whole table when it has no index.
    """
    total = str(int(pages)) if pages is not None else f"(SELECT count(*) FROM {quote(table)})"
    cur = conn.execute(sql("counts", pages_count=total))
    names = [d[0] for d in cur.description]
    row = {k: int(v or 0) for k, v in zip(names, cur.fetchone(), strict=True)}
    canonicals = row.pop("canonicals")
    return Counts(unique=canonicals - row["groups"], **row)
