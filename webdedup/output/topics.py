"""Topic clusters of an annotated crawl, for the export (``webdedup export --topics K``).

The clusters are made of the canonical pages of the last run (one a duplicate group), read
from the database in batches (:func:`~webdedup.algorithms.topics.fit_topics` does the
clustering); every other page of a group is in its canonical's cluster, ignored pages in none.
They need scikit-learn (``pip install 'webdedup[topics]'``).

Example::

    >>> from webdedup.output import export
    >>> export("crawl.sqlite", json_path="report.json", topics=20)  # doctest: +SKIP
"""

from __future__ import annotations

import html
import json
import sqlite3
from collections.abc import Iterable, Iterator
from typing import Any

from ..algorithms.html_text import extract_text
from ..algorithms.topics import Topics, fit_topics
from ..errors import ConfigError
from ..store.pages import as_text
from .source import Source

#: Pages read from the database at a time.
READ_BATCH = 1_000
#: Characters of each page's text the clusters are made of (its beginning).
TOPIC_CHARS = 20_000
#: The seed of the clustering (the same pages give the same clusters).
DEFAULT_SEED = 1


def check_k(k: int) -> None:
    """Raise :class:`ConfigError` for a number of clusters below 1."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ConfigError(f"--topics must be a number of clusters of 1 or more, got {k!r}")


def compute_topics(
    conn: sqlite3.Connection, layout: Source, k: int, *, seed: int = DEFAULT_SEED
) -> Topics:
    """Cluster the canonical pages of ``conn`` into ``k`` topics (inside the caller's read
    transaction, so that every pass reads the same pages)."""
    check_k(k)
    (n,) = conn.execute(layout.sql("topic_count")).fetchone()
    if k > n:
        raise ConfigError(
            f"--topics {k} asks for more clusters than there are canonical pages ({n:,}); "
            f"give --topics {max(1, min(n, 20))} or fewer"
        )
    try:
        import sklearn  # noqa: F401
    except ImportError as exc:
        raise ConfigError(
            "topic clusters need scikit-learn: pip install 'webdedup[topics]'"
        ) from exc
    query = layout.sql("topic_pages")

    def read_batches() -> Iterator[tuple[list[int], list[str]]]:
        cur = conn.execute(query)
        while rows := cur.fetchmany(READ_BATCH):
            yield [r[0] for r in rows], [_text(r[1], r[2]) for r in rows]

    return fit_topics(read_batches, k, seed=seed)


def _text(text: Any, page_html: Any) -> str:
    text = as_text(text)
    if not (isinstance(text, str) and text.strip()):
        page_html = as_text(page_html)
        text = extract_text(page_html) if isinstance(page_html, str) and page_html else ""
    return (text or "")[:TOPIC_CHARS]


def topic_clusters(conn: sqlite3.Connection, layout: Source, topics: Topics) -> list[dict]:
    """The report's ``topic_clusters``: id, size, top terms and sample pages (id, URL, title)."""
    out = []
    query = layout.sql("topic_samples")
    for c in topics.clusters:
        rows = conn.execute(query, {"ids": json.dumps(c.samples)}).fetchall()
        found = {r[0]: {"id": r[0], "url": as_text(r[1]), "title": as_text(r[2])} for r in rows}
        out.append(
            {
                "id": c.id,
                "size": c.size,
                "top_terms": list(c.top_terms),
                "sample_pages": [found[i] for i in c.samples if i in found],
            }
        )
    return out


def grouped_by_topic(
    groups: Iterable[tuple[int, str]], topics: Topics
) -> Iterator[tuple[int, str]]:
    """The review page's ``(canonical id, section)`` pairs ordered by topic (then as given),
    the first section of each topic headed by the topic's id, size and top terms."""
    by_topic: dict[int | None, list[tuple[int, str]]] = {}
    for canonical, section in groups:
        (cluster,) = topics.cluster_of([canonical])
        by_topic.setdefault(cluster, []).append((canonical, section))
    info = {c.id: c for c in topics.clusters}
    for cluster in sorted(by_topic, key=lambda c: (c is None, c)):
        items = by_topic[cluster]
        if cluster is None:
            head = "No topic"
        else:
            c = info[cluster]
            terms = ", ".join(c.top_terms) or "(no terms)"
            head = f"Topic {cluster} · {c.size:,} canonical pages · {terms}"
        header = (
            f'<h2 class="topic" id="topic{cluster if cluster is not None else "-none"}">'
            f"{html.escape(head)} · {len(items)} duplicate groups shown</h2>\n"
        )
        for i, (canonical, section) in enumerate(items):
            yield canonical, (header + section if i == 0 else section)
