"""Why two pages are, or are not, in one duplicate group.

:func:`explain_pair` looks both pages up (by id, by URL, or by the canonical form of a URL),
scores them as the last run did (:func:`run_score`: the run's method, ``NearSpec``, text
window and measure, rebuilt from the stored configuration, and the measure that decided),
compares their texts with every measure webdedup knows, finds the chain that links them
(shared canonical URL, shared content hash, verified near-duplicate edges of
``_webdedup_edges``) and says which one the election order prefers and on which key.

Example::

    >>> e = explain_pair("crawl.sqlite", "12", "https://example.com/a?utm_source=x")
    ... # doctest: +SKIP
    >>> e["link"]["same_group"], e["link"]["path"]  # doctest: +SKIP
    (True, [{'from': 12, 'to': 40, 'via': 'near', 'score': 0.93, 'method': 'minhash'}])
"""

from __future__ import annotations

import sqlite3
from collections import deque
from dataclasses import replace
from datetime import datetime, time, timezone
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
from rapidfuzz import fuzz

from ..algorithms import minhash, simhash
from ..algorithms.election import DEFAULT_ELECTION, ELECTION_KEYS, validate_election
from ..algorithms.election import explain as election_values
from ..algorithms.shingles import jaccard, shingle_hashes
from ..algorithms.sketch import LEVENSHTEIN_MAX_CHARS, features, verify
from ..algorithms.text import SKETCH_CHARS
from ..algorithms.urls import canonicalize_url
from ..config import Config
from ..errors import ConfigError, InputError
from ..pipeline.own_content import stored_own_text
from ..store import sql
from ..store.pages import PageInput, as_text, page_digest
from ..store.verdicts import pin_ranks, read_verdicts
from .source import Source, open_source

#: Characters of normalized text compared by the Levenshtein ratio (as the run compares them).
RATIO_CHARS = LEVENSHTEIN_MAX_CHARS
#: Nodes a search for an edge path may visit before it gives up.
MAX_PATH_NODES = 100_000


class PageNotFound(InputError):
    """A page given to ``explain`` is in the database neither by id nor by URL."""


def _rows(cur: sqlite3.Cursor) -> list[dict[str, Any]]:
    names = [d[0] for d in cur.description]
    return [dict(zip(names, map(as_text, r), strict=True)) for r in cur]


def resolve_page(conn: sqlite3.Connection, layout: Source, ref: str | int) -> int:
    """The page id of ``ref``: an id, else a URL as stored, else a URL's canonical form."""
    text = str(ref).strip()
    if text.isdigit():
        found = conn.execute(layout.sql("page", text="NULL"), {"id": int(text)}).fetchone()
        if found:
            return int(text)
    row = conn.execute(layout.sql("page_by_url"), {"url": text}).fetchone()
    if row:
        return int(row[0])
    discard = bool(layout.config.get("discard_params", False))
    canonical = canonicalize_url(text, discard_params=discard)
    if canonical:
        row = conn.execute(
            layout.sql("page_by_canonical_url"), {"canonical_url": canonical}
        ).fetchone()
        if row:
            return int(row[0])
    raise PageNotFound(
        f"no page {text!r} in table {layout.table!r}: give a page id, or a URL as crawled "
        f"(or one with the same canonical form{', ' + repr(canonical) if canonical else ''})"
    )


def _page(conn: sqlite3.Connection, layout: Source, page_id: int) -> dict[str, Any]:
    rows = _rows(conn.execute(layout.sql("page"), {"id": page_id}))
    page = rows[0]
    text = page.pop("text")
    html = page.pop("html")
    raw = PageInput(page_id, None, as_text(text), html)
    page["normalized_text"] = page_digest(raw).sketch  # as the run reads it
    if page["is_canonical"] is not None:
        page["is_canonical"] = bool(page["is_canonical"])
    return page


def _band_keys(conn: sqlite3.Connection, page_id: int) -> np.ndarray | None:
    """A page's stored minhash band keys (its sketch), None when it has none."""
    row = conn.execute(sql("export/sketch"), {"id": page_id}).fetchone()
    if not row or not str(row[0]).startswith("minhash-bands") or len(row[1]) % 4:
        return None
    return np.frombuffer(row[1], dtype="<u4")


def run_config(stored: dict[str, Any]) -> Config:
    """The configuration of the last run, from its stored form (defaults when unusable)."""
    known = {k: v for k, v in stored.items() if k not in ("columns",)}
    try:
        return Config.from_mapping(known)
    except (ConfigError, TypeError, ValueError):
        return Config()


def run_score(config: Config, text_a: str, text_b: str) -> dict[str, Any]:
    """The similarity the run computes for two normalized texts, and the measure that decided.

    The same code path as phase 4: ``minhash`` and ``simhash`` verify on the Levenshtein
    ratio, the moved ratio or containment (:func:`~webdedup.algorithms.sketch.verify`);
    ``levenshtein`` on the Indel ratio of the first ``LEVENSHTEIN_MAX_CHARS``
    characters. ``score`` is rounded as the stored edge scores are.

    ``vectors`` scores a pair by the higher of the word TF-IDF cosine and the ``minhash``
    verdict (:func:`~webdedup.algorithms.vectors.verdict_scores`); the cosine weighs words by
    their frequency over all the run's texts, which no run keeps, so it cannot be recomputed
    for one pair: ``score`` is ``None`` (:func:`explain_pair` puts the stored edge's score
    there), ``shingle_score`` the ``minhash`` verdict (a lower bound of the run's score).
    """
    spec = config.near_spec()
    out: dict[str, Any] = {"method": spec.method, "threshold": spec.threshold}
    if spec.method in ("minhash", "simhash"):
        v = verify(spec, features(spec, text_a), features(spec, text_b))
        out |= {
            "score": round(float(v.score), 6),
            "measure": v.measure,
            "shingle_measure": spec.similarity,
            "shingle_score": round(float(v.shingle_score or 0.0), 6),
            "compared_chars": SKETCH_CHARS
            if v.measure != "levenshtein"
            else LEVENSHTEIN_MAX_CHARS,
        }
    elif spec.method == "vectors":
        shingled = replace(spec, method="minhash")
        v = verify(shingled, features(shingled, text_a), features(shingled, text_b))
        out |= {
            "score": None,
            "measure": "vectors",
            "recomputed": False,
            "shingle_measure": v.measure,
            "shingle_score": round(float(v.score), 6),
            "compared_chars": SKETCH_CHARS,
        }
        out["edge"] = out["shingle_score"] >= spec.threshold
        return out
    else:
        a, b = text_a[:LEVENSHTEIN_MAX_CHARS], text_b[:LEVENSHTEIN_MAX_CHARS]
        out |= {
            "score": round(fuzz.ratio(a, b) / 100.0, 6),
            "measure": "levenshtein",
            "compared_chars": LEVENSHTEIN_MAX_CHARS,
        }
    out["edge"] = out["score"] >= spec.threshold
    return out


def similarities(
    text_a: str,
    text_b: str,
    *,
    shingle_size: int = 5,
    num_perm: int = 128,
    seed: int = 1,
    stored: tuple[np.ndarray | None, np.ndarray | None] = (None, None),
) -> dict[str, Any]:
    """Every similarity measure of two normalized texts; with the pages' stored minhash band
    keys (``stored``), how many bands they share (one makes them a candidate pair)."""
    ha = shingle_hashes(text_a[:SKETCH_CHARS], shingle_size)
    hb = shingle_hashes(text_b[:SKETCH_CHARS], shingle_size)
    hasher = minhash.MinHasher(num_perm=num_perm, seed=seed)
    sig_a, sig_b = hasher.signature(ha), hasher.signature(hb)
    keys_a, keys_b = stored
    shared = None
    if keys_a is not None and keys_b is not None and keys_a.shape == keys_b.shape:
        shared = [int(np.count_nonzero(keys_a == keys_b)), int(keys_a.size)]
    a, b = text_a[:RATIO_CHARS], text_b[:RATIO_CHARS]
    return {
        "minhash_estimate": round(minhash.estimate_jaccard(sig_a, sig_b), 6),
        "minhash_source": f"computed (num_perm={num_perm}, seed={seed})",
        "bands_shared": shared,
        "jaccard": round(jaccard(ha, hb), 6),
        "shingle_size": shingle_size,
        "shingles": [int(ha.size), int(hb.size)],
        "levenshtein_ratio": round(fuzz.ratio(a, b) / 100.0, 6),
        "simhash_similarity": round(
            simhash.similarity(simhash.simhash(text_a), simhash.simhash(text_b)), 6
        ),
    }


def _edge_path(
    conn: sqlite3.Connection, layout: Source, page_a: dict[str, Any], page_b: dict[str, Any]
) -> list[dict[str, Any]] | None:
    """The shortest chain from A to B: url/exact hops to an edge endpoint, then edges."""
    ids = {"id_a": page_a["id"], "id_b": page_b["id"]}
    groups = {"group_a": page_a["dup_group"], "group_b": page_b["dup_group"]}
    members = {r["id"]: r for r in _rows(conn.execute(layout.sql("group_members"), groups))}
    members.setdefault(page_a["id"], page_a)
    members.setdefault(page_b["id"], page_b)

    def hop(x: dict[str, Any], y: dict[str, Any]) -> str | None:
        if x["id"] == y["id"]:
            return "same"
        if x["canonical_url"] and x["canonical_url"] == y["canonical_url"]:
            return "url"
        if x["content_hash"] and x["content_hash"] == y["content_hash"]:
            return "exact"
        return None

    direct = hop(page_a, page_b)
    if direct:
        return [{"from": page_a["id"], "to": page_b["id"], "via": direct}]
    adjacency: dict[int, list[tuple[int, float, str]]] = {}
    for a, b, score, method in conn.execute(layout.sql("edges_touching"), groups | ids):
        adjacency.setdefault(a, []).append((b, score, method))
        adjacency.setdefault(b, []).append((a, score, method))
    starts = {m: hop(page_a, r) for m, r in members.items() if m in adjacency and hop(page_a, r)}
    ends = {m: hop(r, page_b) for m, r in members.items() if m in adjacency and hop(r, page_b)}
    previous: dict[int, tuple[int, float, str] | None] = dict.fromkeys(starts)
    queue = deque(starts)
    found = None
    while queue and len(previous) <= MAX_PATH_NODES:
        node = queue.popleft()
        if node in ends:
            found = node
            break
        for nxt, score, method in adjacency.get(node, ()):
            if nxt not in previous:
                previous[nxt] = (node, score, method)
                queue.append(nxt)
    if found is None:
        return None
    steps: list[dict[str, Any]] = []
    node = found
    while previous[node] is not None:
        before, score, method = previous[node]  # type: ignore[misc]
        steps.append({"from": before, "to": node, "via": "near", "score": score, "method": method})
        node = before
    steps.reverse()
    if starts[node] != "same":
        steps.insert(0, {"from": page_a["id"], "to": node, "via": starts[node]})
    if ends[found] != "same":
        steps.append({"from": found, "to": page_b["id"], "via": ends[found]})
    return steps


def _word_count(conn: sqlite3.Connection, page_id: int) -> int | None:
    row = _webdedup_prepared(conn, page_id)
    return None if row is None else getattr(row, "word_count", None)


def _webdedup_prepared(conn: sqlite3.Connection, page_id: int | None) -> SimpleNamespace | None:
    if page_id is None:
        return None
    rows = _rows(conn.execute(sql("export/prepared_row"), {"id": page_id}))
    return SimpleNamespace(**rows[0]) if rows else None


def _decide(keys: tuple[str, ...], x: SimpleNamespace, y: SimpleNamespace) -> dict[str, Any]:
    """Which of two prepared rows the election order prefers, and the first key that decides."""
    for name in keys:
        kx, ky = ELECTION_KEYS[name].key(x), ELECTION_KEYS[name].key(y)
        if kx != ky:
            winner = x if kx < ky else y
            values = election_values((name,), x), election_values((name,), y)
            return {
                "winner": winner.id,
                "key": name,
                "rule": ELECTION_KEYS[name].description,
                "values": {str(x.id): values[0][name], str(y.id): values[1][name]},
            }
    return {
        "winner": min(x.id, y.id),
        "key": "lower_id",
        "rule": "lower page id first",
        "values": {str(x.id): x.id, str(y.id): y.id},
    }


def _election(
    conn: sqlite3.Connection, layout: Source, page_a: dict[str, Any], page_b: dict[str, Any]
) -> dict[str, Any]:
    keys = validate_election(layout.election or DEFAULT_ELECTION)
    rows = {p["id"]: _webdedup_prepared(conn, p["id"]) for p in (page_a, page_b)}
    canon_ids = {p["canonical_id"] for p in (page_a, page_b) if p["canonical_id"] is not None}
    for cid in canon_ids:
        rows.setdefault(cid, _webdedup_prepared(conn, cid))
    out: dict[str, Any] = {
        "order": list(keys),
        "values": {
            str(i): (election_values(keys, r) if r is not None else None) for i, r in rows.items()
        },
        "ignored": {str(i): r.ignored for i, r in rows.items() if r is not None and r.ignored},
        "decisions": [],
    }
    pairs = [(page_a["id"], page_b["id"])]
    for p in (page_a, page_b):
        if p["canonical_id"] is not None and p["canonical_id"] != p["id"]:
            pairs.append((p["canonical_id"], p["id"]))
    seen: set[frozenset[int]] = set()
    pins = pin_ranks(read_verdicts(conn))
    for x, y in pairs:
        rx, ry = rows.get(x), rows.get(y)
        if frozenset((x, y)) in seen or rx is None or ry is None:
            continue  # one decision a pair of pages, whichever way round it came up
        seen.add(frozenset((x, y)))
        decided = _pinned(pins, x, y) or _decide(keys, rx, ry)
        out["decisions"].append({"between": [x, y], **decided})
    return out


def _pinned(pins: dict[int, int], x: int, y: int) -> dict[str, Any] | None:
    """The decision of a reviewer's "canonical" verdict, which goes before the election order
    (the later choice first when both pages were chosen); None when it does not decide."""
    rx, ry = pins.get(x), pins.get(y)
    if rx == ry:
        return None
    winner = x if ry is None or (rx is not None and rx < ry) else y
    return {
        "winner": winner,
        "key": "reviewer",
        "rule": "chosen as canonical by a reviewer, before the election order",
        "values": {str(p): "chosen" if r is not None else "-" for p, r in ((x, rx), (y, ry))},
    }


def explain_pair(
    db: str | Path | sqlite3.Connection,
    ref_a: str | int,
    ref_b: str | int,
    *,
    busy_timeout: float = 5.0,
) -> dict[str, Any]:
    """Explain how two pages of an annotated database relate (a JSON-ready dict).

    Keys: ``pages`` (both pages' annotations), ``run`` (the score the run computes, the
    measure that decided it, whether it makes an edge: :func:`run_score`), ``similarity``
    (MinHash estimate, true Jaccard of shingles, Levenshtein ratio, SimHash similarity),
    ``threshold``, ``link``
    (same group?, the chain of url/exact/near hops that links them, or ``None``) and
    ``election`` (the order, each page's election values, and which page wins on which key).
    """
    with open_source(db, busy_timeout=busy_timeout) as (conn, layout):
        conn.execute("BEGIN")
        try:
            id_a = resolve_page(conn, layout, ref_a)
            id_b = resolve_page(conn, layout, ref_b)
            if id_a == id_b:
                same = "" if str(ref_a).strip() == str(ref_b).strip() else " (both name it)"
                raise ConfigError(
                    f"{ref_a!s} and {ref_b!s} are the same page, #{id_a}{same}: give two "
                    "different pages to explain how they relate"
                )
            page_a, page_b = _page(conn, layout, id_a), _page(conn, layout, id_b)
            cfg = layout.config
            config = run_config(cfg)
            compared = {}  # own texts, as the run compared them (pipeline.own_content)
            for p in (page_a, page_b):
                own = stored_own_text(conn, layout.layout, config, p["id"])
                compared[p["id"]] = (
                    p["normalized_text"] if own is None
                    else page_digest(PageInput(p["id"], None, own)).sketch
                )
            run = run_score(config, compared[id_a], compared[id_b])
            run["compared"] = {
                str(i): "whole text" if compared[i] == p["normalized_text"] else "own text"
                for i, p in ((id_a, page_a), (id_b, page_b))
            }
            if run["measure"] == "vectors":  # the run's score is the stored edge's, if any
                stored = conn.execute(sql("export/edge_between"), {"a": id_a, "b": id_b})
                edge = stored.fetchone()
                run["score"] = None if edge is None else float(edge[0])
                run["edge"] = edge is not None
            words = {p["id"]: _word_count(conn, p["id"]) for p in (page_a, page_b)}
            short = [pid for pid, n in words.items() if n is not None and n < config.min_words]
            if short:
                run["too_short"] = short
            sims = similarities(
                page_a.pop("normalized_text"),
                page_b.pop("normalized_text"),
                shingle_size=int(cfg.get("shingle_size", 5)),
                num_perm=int(cfg.get("num_perm", 128)),
                seed=int(cfg.get("seed", 1)),
                stored=(_band_keys(conn, id_a), _band_keys(conn, id_b)),
            )
            same_group = page_a["dup_group"] is not None and (
                page_a["dup_group"] == page_b["dup_group"]
            )
            path = _edge_path(conn, layout, page_a, page_b)
            election = _election(conn, layout, page_a, page_b)
            verdicts = read_verdicts(conn, {id_a, id_b})
        finally:
            if conn.in_transaction:
                conn.execute("COMMIT")
    return {
        "pages": [page_a, page_b],
        "similarity": sims,
        "run": run,
        "method": cfg.get("method"),
        "threshold": cfg.get("threshold"),
        "link": {
            "same_group": same_group,
            "group": page_a["dup_group"] if same_group else None,
            "linked": path is not None,
            "path": path,
        },
        "election": election,
        "verdicts": [v.describe() for v in verdicts],
    }


def printable(value: Any) -> str:
    r"""``value`` as text safe for a terminal: control and format characters (escape
    sequences, line breaks, bidi overrides) are shown as Python escapes.

    Example::

        >>> printable("red \x1b[31mtitle\n")
        'red \\x1b[31mtitle\\n'
        >>> printable("Café – 東京")
        'Café – 東京'
    """
    text = str(value)
    if text.isprintable():
        return text
    return "".join(
        c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text
    )


#: Election keys whose values are timestamps (epoch seconds, as the election compares them).
TIME_KEYS = frozenset({"newer_datetime", "older_datetime", "newer_crawled", "older_crawled"})


def election_value(key: str, value: Any) -> str:
    """An election value for people: a timestamp key's epoch seconds as a UTC date and time.

    Example::

        >>> election_value("newer_datetime", 1709287200.0)
        '2024-03-01 10:00:00 UTC'
        >>> election_value("newer_crawled", None), election_value("longer_text", 1520)
        ('none', '1520')
    """
    if value is None:
        return "none"
    if key in TIME_KEYS and isinstance(value, (int, float)):
        try:
            when = datetime.fromtimestamp(value, tz=timezone.utc)
        except (OverflowError, OSError, ValueError):
            return printable(value)
        if when.time() == time(0):
            return when.strftime("%Y-%m-%d")
        return when.strftime("%Y-%m-%d %H:%M:%S UTC")
    return printable(value)


def format_explanation(e: dict[str, Any]) -> str:
    """Human-readable lines for ``webdedup explain`` (page data through :func:`printable`)."""
    a, b = e["pages"]
    lines = []
    for label, p in (("A", a), ("B", b)):
        role = (
            "canonical"
            if p["is_canonical"]
            else f"{p['dup_kind']} duplicate of #{p['canonical_id']}"
            if p["dup_kind"]
            else "not annotated"
        )
        lines += [
            f"{label}: #{p['id']} {printable(p['url'])}",
            f"   title: {printable(p['title'])}",
            f"   canonical URL: {printable(p['canonical_url'])}",
            f"   content hash: {p['content_hash']}",
            f"   group {p['dup_group']} ({p['dup_group_size']} pages), {role}, "
            f"dup_score {p['dup_score']}",
        ]
    r = e.get("run")
    if r and r["measure"] == "vectors":
        found = (
            f"stored edge score {r['score']:.4f} -> an edge"
            if r["score"] is not None
            else "no stored edge between these two pages"
        )
        lines += [
            f"run's score: vectors (the higher of word TF-IDF cosine and the minhash verdict), "
            f"threshold {r['threshold']}: {found}",
            "   the cosine can't be recomputed for one pair (its word weights span all the "
            "run's texts and are not kept);",
            f"   minhash verdict {r['shingle_measure']} {r['shingle_score']:.4f} "
            "(a lower bound of the run's score)",
        ]
    elif r:
        decided = f"{r['measure']} {r['score']:.4f}"
        if r.get("shingle_score") is not None and r["measure"] != r.get("shingle_measure"):
            decided += f" (shingle {r['shingle_measure']} {r['shingle_score']:.4f})"
        verdict = "an edge" if r["edge"] else "no edge"
        lines.append(
            f"run's score: {decided}, threshold {r['threshold']} -> {verdict} "
            f"(method {r['method']}, first {r['compared_chars']:,} characters compared)"
        )
        if r.get("too_short"):
            ids = ", ".join(f"#{i}" for i in r["too_short"])
            lines.append(f"   {ids} under min_words: never compared as near-duplicates")
    s = e["similarity"]
    lines += [
        "similarity:",
        f"   MinHash estimate     {s['minhash_estimate']:.4f}  ({s['minhash_source']})",
        *(
            [f"   LSH bands shared     {s['bands_shared'][0]} of {s['bands_shared'][1]} "
             "(stored sketches; one makes a candidate pair)"]
            if s.get("bands_shared")
            else []
        ),
        f"   Jaccard ({s['shingle_size']}-word shingles) {s['jaccard']:.4f}  "
        f"({s['shingles'][0]} vs {s['shingles'][1]} shingles)",
        f"   Levenshtein ratio    {s['levenshtein_ratio']:.4f}",
        f"   SimHash similarity   {s['simhash_similarity']:.4f}",
        f"   (run: method {e['method']}, threshold {e['threshold']})",
    ]
    link = e["link"]
    if link["same_group"]:
        lines.append(f"same group: yes (group {link['group']})")
    else:
        lines.append("same group: no")
    if link["path"]:
        lines.append("linked through:")
        for step in link["path"]:
            extra = (
                f" score {step['score']:.4f} ({step['method']})" if step["via"] == "near" else ""
            )
            lines.append(f"   #{step['from']} -> #{step['to']}: {step['via']}{extra}")
    else:
        lines.append("linked: no (no shared canonical URL, hash, or chain of verified edges)")
    el = e["election"]
    lines.append("election order: " + ", ".join(el["order"]))
    for d in el["decisions"]:
        x, y = d["between"]
        loser = y if d["winner"] == x else x
        vals = ", ".join(
            f"#{k}: {election_value(d['key'], v)}" for k, v in d["values"].items()
        )
        lines.append(f"   #{d['winner']} beats #{loser} on {d['key']} ({d['rule']}; {vals})")
    for pid, reason in el["ignored"].items():
        lines.append(f"   #{pid} was ignored: {printable(reason)}")
    if e.get("verdicts"):
        lines.append("reviewer verdicts (honoured by every run since):")
        lines += [f"   {printable(v)}" for v in e["verdicts"]]
    return "\n".join(lines)
