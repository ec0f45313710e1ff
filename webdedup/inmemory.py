"""``run_on_list``: the same phases over a list of pages, in memory, without SQL.

The elections use :func:`webdedup.election.sort_key`, the Python twin of the SQL ``ORDER BY``,
and the assignment follows ``sql/assign.sql`` rule for rule, so for the same pages
``run_on_db`` and ``run_on_list`` give the same groups and canonicals (tested).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .config import Config
from .election import sort_key
from .phases.elect import exact_components
from .phases.near import NearSpec, near_in_memory
from .phases.prepare import PageInput, Prepared, prepare_page, small_hosts
from .urls import IgnoreRules


def page_input(page: Mapping[str, Any], default_id: int, config: Config) -> PageInput:
    """Read one page dict with the configured column names (``text`` is accepted too)."""
    cols = config.columns
    text = page.get(cols.content, page.get("text"))
    dt = page.get(cols.datetime, page.get(cols.date))
    return PageInput(
        id=int(page.get("id", default_id)),
        url=page.get(cols.url),
        text=text,
        html=page.get(cols.html),
        datetime=dt,
        crawled=page.get(cols.crawled),
        category=page.get(cols.category),
    )


def assign_pages(
    pages: Iterable[Mapping[str, Any]], config: Config
) -> tuple[list[Prepared], dict[int, dict[str, Any]]]:
    """Prepare and elect; returns the prepared rows and each page id's output columns."""
    rules = IgnoreRules.from_patterns(config.urls_to_ignore)
    prepared: list[Prepared] = []
    texts: dict[int, str] = {}
    seen: set[int] = set()
    for i, page in enumerate(pages, start=1):
        row, text = prepare_page(page_input(page, i, config), config, rules)
        texts[row.id] = text
        if row.id in seen:
            raise ValueError(f"page id {row.id} appears twice; give every page a unique 'id'")
        seen.add(row.id)
        prepared.append(row)
    if config.n_min > 0:
        small = small_hosts(prepared, config.n_min)
        prepared = [
            r._replace(ignored="small_host") if r.ignored is None and r.host in small else r
            for r in prepared
        ]
    key = sort_key(config.election)
    active = [r for r in prepared if r.ignored is None]

    url_winner = _elect(active, lambda r: r.url_key, key)
    winners = [r for r in active if url_winner[r.id] == r.id]
    holders: dict[str | None, set[int]] = {}  # the twin of sql/exact_links.sql
    for r in active:
        if url_winner[r.id] == r.id or r.word_count >= config.min_words:
            holders.setdefault(r.content_hash, set()).add(url_winner[r.id])
    component = exact_components(sorted(ws) for ws in holders.values() if len(ws) > 1)
    exact_winner = _elect(winners, lambda r: component.get(r.id, r.id), key)
    spec = NearSpec.from_config(config)
    best_of: dict[tuple[int, str | None], int] = {}  # the twin of sql/near_nodes.sql
    for r in active:
        if r.word_count >= spec.min_words:
            k = (exact_winner[url_winner[r.id]], r.content_hash)
            best_of[k] = min(best_of.get(k, r.id), r.id)
    by_id = {r.id: r for r in active}
    nodes = [(pid, comp, by_id[pid].url_key, texts[pid]) for (comp, _h), pid in best_of.items()]
    order = [r.id for r in sorted(winners, key=key) if exact_winner[r.id] == r.id]
    _edges, near = near_in_memory(spec, nodes, order, texts)  # exact winner -> (canonical, score)

    canonical: dict[int, int] = {}
    score_of: dict[int, float] = {}
    for r in active:
        ew = exact_winner[url_winner[r.id]]
        centre, near_score = near.get(ew, (ew, None))
        canonical[r.id] = centre
        score_of[r.id] = 1.0 if ew == centre else (near_score if near_score is not None else 1.0)
    members: dict[int, list[int]] = {}
    for pid, c in canonical.items():
        members.setdefault(c, []).append(pid)

    out: dict[int, dict[str, Any]] = {}
    exact_size: dict[str | None, int] = {}
    for r in active:
        exact_size[r.content_hash] = exact_size.get(r.content_hash, 0) + 1
    for r in prepared:
        base = {"id": r.id, "canonical_url": r.canonical_url, "content_hash": r.content_hash}
        if r.ignored is not None:
            out[r.id] = base | {
                "exact_group_size": None, "dup_group": None, "dup_group_size": None,
                "canonical_id": None, "is_canonical": None, "dup_kind": "ignored",
                "dup_score": None, "ignored": r.ignored,
            }
            continue
        c = canonical[r.id]
        uw, ew = url_winner[r.id], exact_winner[url_winner[r.id]]
        kind = None if r.id == c else "url" if r.id != uw else "exact" if r.id != ew else "near"
        out[r.id] = base | {
            "exact_group_size": exact_size[r.content_hash],
            "dup_group": min(members[c]),
            "dup_group_size": len(members[c]),
            "canonical_id": c,
            "is_canonical": 1 if r.id == c else 0,
            "dup_kind": kind,
            "dup_score": score_of[r.id],
            "ignored": None,
        }
    return prepared, out


def _elect(rows: list[Prepared], partition: Any, key: Any) -> dict[int, int]:
    """Winner id of each row's partition, by the election ``key`` (lowest key wins)."""
    best: dict[Any, Prepared] = {}
    for r in rows:
        p = partition(r)
        cur = best.get(p)
        if cur is None or key(r) < key(cur):
            best[p] = r
    return {r.id: best[partition(r)].id for r in rows}
