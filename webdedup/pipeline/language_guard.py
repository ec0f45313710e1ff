"""The language guard of phase 4: two pages surely in different languages are never
near-duplicates (:func:`~webdedup.algorithms.language.different_languages`).

Applied to the verified edges before they are clustered, so a page can join neither the
other page's group nor a group through it. Mixed-language pages, whose detection is not
confident, are left to their texts' similarity.
"""

from __future__ import annotations

import json
import sqlite3

import numpy as np

from ..algorithms.cluster import Edges
from ..algorithms.language import different_languages
from ..store import sql

#: Edges whose pages' languages are looked up at a time (a dict of their pages, not of
#: every page of every edge: at millions of edges that took hundreds of MB).
CHUNK = 100_000


def keep_same_language(conn: sqlite3.Connection, edges: Edges) -> Edges:
    """The edges whose two pages are not surely in different languages: ``edges`` itself
    when none is dropped. The pages' languages are read :data:`CHUNK` edges at a time."""
    keep: np.ndarray | None = None
    none = (None, None)
    for start in range(0, len(edges), CHUNK):
        a, b = edges.a[start:start + CHUNK], edges.b[start:start + CHUNK]
        ids = np.unique(np.concatenate([a, b])).tolist()
        langs = {
            i: (lang, score)
            for i, lang, score in conn.execute(sql("language_of"), {"ids": json.dumps(ids)})
        }
        del ids
        if not langs:  # no page of these edges has a language
            continue
        apart = np.fromiter(
            (different_languages(*langs.get(x, none), *langs.get(y, none))
             for x, y in zip(a.tolist(), b.tolist(), strict=True)),
            bool, len(a),
        )
        if apart.any():
            if keep is None:
                keep = np.ones(len(edges), dtype=bool)
            keep[start:start + len(a)] = ~apart
    return edges if keep is None else edges[keep]
