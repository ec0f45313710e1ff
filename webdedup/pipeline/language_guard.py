"""The language guard of phase 4: two pages surely in different languages are never
near-duplicates (:func:`~webdedup.algorithms.language.different_languages`).

Applied to the verified edges before they are clustered, so a page can join neither the
other page's group nor a group through it. Mixed-language pages, whose detection is not
confident, are left to their texts' similarity.
"""

from __future__ import annotations

import json
import sqlite3

from ..algorithms.language import different_languages
from ..store import sql

Edge = tuple[int, int, float]


#: Edges whose pages' languages are looked up at a time (a set and a dict of their pages,
#: not of every page of every edge: at millions of edges those took hundreds of MB).
CHUNK = 100_000


def keep_same_language(conn: sqlite3.Connection, edges: list[Edge]) -> list[Edge]:
    """The edges whose two pages are not surely in different languages: ``edges`` itself
    when none is dropped (at millions of edges a copy of the list is hundreds of MB).

    The pages' languages are read for :data:`CHUNK` edges at a time."""
    drop: list[int] = []
    none = (None, None)
    for start in range(0, len(edges), CHUNK):
        part = edges[start:start + CHUNK]
        ids = sorted({x for a, b, _ in part for x in (a, b)})
        langs = {
            i: (lang, score)
            for i, lang, score in conn.execute(sql("language_of"), {"ids": json.dumps(ids)})
        }
        del ids
        if not langs:  # no page of these edges has a language
            continue
        drop += [
            start + k
            for k, (a, b, _) in enumerate(part)
            if different_languages(*langs.get(a, none), *langs.get(b, none))
        ]
    if not drop:
        return edges
    dropped = set(drop)
    return [e for k, e in enumerate(edges) if k not in dropped]
