"""The language guard of phase 4: two pages surely in different languages are never
near-duplicates (:func:`~webdedup.algorithms.language.different_languages`).

Applied to the verified edges before they are clustered, so a page can join neither the
other page's group nor a group through it. Mixed-language pages, whose detection is not
confident, are left to their texts' similarity.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

from ..algorithms.language import different_languages
from ..store import sql

Edge = tuple[int, int, float]


def keep_same_language(conn: sqlite3.Connection, edges: Sequence[Edge]) -> list[Edge]:
    """The edges whose two pages are not surely in different languages."""
    if not edges:
        return list(edges)
    ids = sorted({x for a, b, _ in edges for x in (a, b)})
    langs = {
        i: (lang, score)
        for i, lang, score in conn.execute(sql("language_of"), {"ids": json.dumps(ids)})
    }
    none = (None, None)
    return [
        (a, b, s)
        for a, b, s in edges
        if not different_languages(*langs.get(a, none), *langs.get(b, none))
    ]
