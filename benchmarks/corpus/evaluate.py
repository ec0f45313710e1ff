#!/usr/bin/env python3
"""Score webdedup's predicted groups against a labelled corpus (make_corpus.py or
make_corpus_b.py), or against a reviewer's labelled pairs.

    python -m benchmarks.corpus.evaluate DB [--run METHOD] [--json]
    python -m benchmarks.corpus.evaluate DB --labels pairs.jsonl [--run METHOD] [--json]

With ``--labels`` the truth is the JSON Lines file that ``webdedup calibrate DB --labels
pairs.jsonl`` writes from the reviewer's verdicts (one pair a line: ``a``, ``b``,
``duplicate``): each pair is predicted a duplicate when the two pages share a ``dup_group``,
and the report counts true/false positives and negatives, precision and recall (the DB needs
no ``corpus_truth``).

Reads ``pages.dup_group`` (the predicted group; NULL = the page was ignored, i.e. it is its own
singleton) and ``corpus_truth`` (true ``cluster``, ``kind``, ``original_id``,
``negative_group``). With ``--run METHOD`` it first runs
``webdedup.Deduplicator(method=METHOD, config=Config()).run_on_db(DB)``.

Metrics (all from contingency counts, linear in the number of pages):
  * pairwise precision / recall / F1 over pairs of pages put in one group;
  * adjusted Rand index;
  * recall per derived kind: share of derived pages in the same predicted group as their
    original;
  * hard-negative false merges: pairs of one ``negative_group`` with different true clusters
    that share a predicted group (total and per negative kind);
  * counts: pages, true clusters, predicted groups.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

# those of make_corpus.py, then those of make_corpus_b.py, then make_corpus_reworded.py's,
# then make_corpus_c.py's
NEGATIVE_KINDS = ("same_template", "short_boilerplate", "half_replaced", "cjk_same_template",
                  "aed_template", "cookie_banner", "short_page", "cjk_template", "same_topic",
                  "shared_footer", "article_parts", "listing_pages", "cjk_shared_nav")


def comb2(n: int) -> int:
    return n * (n - 1) // 2


def pair_counts(truth: Sequence, pred: Sequence) -> dict[str, int]:
    """Pair counts of two labelings of the same items (no item is None)."""
    if len(truth) != len(pred):
        raise ValueError("labelings differ in length")
    cont = Counter(zip(truth, pred, strict=True))
    both = sum(comb2(c) for c in cont.values())
    true_pairs = sum(comb2(c) for c in Counter(truth).values())
    pred_pairs = sum(comb2(c) for c in Counter(pred).values())
    return {"n": len(truth), "both": both, "true_pairs": true_pairs, "pred_pairs": pred_pairs,
            "all_pairs": comb2(len(truth))}


def scores_from_counts(c: dict[str, int]) -> dict[str, float]:
    """Pairwise precision/recall/F1 and the adjusted Rand index from pair counts.

    Conventions: no predicted pairs -> precision 1.0; no true pairs -> recall 1.0; ARI is 1.0
    when both labelings are trivial in the same way (its denominator is 0).
    """
    both, tp_, pp = c["both"], c["true_pairs"], c["pred_pairs"]
    precision = both / pp if pp else 1.0
    recall = both / tp_ if tp_ else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    total = c["all_pairs"]
    expected = tp_ * pp / total if total else 0.0
    max_index = (tp_ + pp) / 2
    if max_index == expected:
        ari = 1.0
    else:
        ari = (both - expected) / (max_index - expected)
    return {"precision": precision, "recall": recall, "f1": f1, "ari": ari}


def adjusted_rand_index(truth: Sequence, pred: Sequence) -> float:
    return scores_from_counts(pair_counts(truth, pred))["ari"]


def _singletonize(ids: Iterable[int], groups: Iterable) -> list:
    """NULL predicted groups become singletons (a label no other page has)."""
    return [("g", g) if g is not None else ("p", i) for i, g in zip(ids, groups, strict=True)]


def evaluate(db_path) -> dict:
    """Score ``pages.dup_group`` against ``corpus_truth`` in the SQLite file ``db_path``."""
    t0 = time.perf_counter()
    con = sqlite3.connect(str(db_path))
    try:
        cols = {r[1] for r in con.execute("PRAGMA table_info(pages)")}
        has_pred = "dup_group" in cols
        pred_sql = "p.dup_group" if has_pred else "NULL"
        rows = con.execute(
            f"SELECT t.page_id, t.cluster, t.kind, t.original_id, t.negative_group, {pred_sql} "
            "FROM corpus_truth t LEFT JOIN pages p ON p.id = t.page_id ORDER BY t.page_id"
        ).fetchall()
    finally:
        con.close()
    if not rows:
        raise ValueError(f"{db_path}: corpus_truth is empty")

    ids = [r[0] for r in rows]
    truth = [r[1] for r in rows]
    raw_pred = [r[5] for r in rows]
    pred = _singletonize(ids, raw_pred)
    counts = pair_counts(truth, pred)
    result: dict = {"db": str(db_path), **scores_from_counts(counts), "pairs": counts}

    # per derived kind: same predicted group as the original?
    pred_of = dict(zip(ids, raw_pred, strict=True))
    per_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for _pid, _cl, kind, orig, _ng, g in rows:
        if orig is None:
            continue
        k = per_kind[kind]
        k[0] += 1
        if g is not None and pred_of.get(orig) == g:
            k[1] += 1
    result["kind_recall"] = {
        kind: {"pages": n, "found": f, "recall": f / n if n else 0.0}
        for kind, (n, f) in sorted(per_kind.items())
    }

    # hard negatives: pairs in one negative_group, different true clusters, same prediction
    groups: dict[int, list[tuple]] = defaultdict(list)
    for (pid, cl, kind, _o, ng, _g), p in zip(rows, pred, strict=True):
        if ng is not None:
            groups[ng].append((cl, p, kind, pid))
    neg: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # groups, pairs, merged
    for members in groups.values():
        kinds = {m[2] for m in members if m[2] in NEGATIVE_KINDS}
        kind = min(kinds) if kinds else "other"
        pairs = comb2(len(members)) - sum(comb2(c) for c in Counter(m[0] for m in members)
                                          .values())
        same_pred = sum(comb2(c) for c in Counter(m[1] for m in members).values())
        same_both = sum(comb2(c) for c in Counter((m[0], m[1]) for m in members).values())
        acc = neg[kind]
        acc[0] += 1
        acc[1] += pairs
        acc[2] += same_pred - same_both
    total_pairs = sum(v[1] for v in neg.values())
    total_merged = sum(v[2] for v in neg.values())
    result["hard_negatives"] = {
        "groups": sum(v[0] for v in neg.values()),
        "pairs": total_pairs,
        "false_merges": total_merged,
        "false_merge_rate": total_merged / total_pairs if total_pairs else 0.0,
        "by_kind": {k: {"groups": v[0], "pairs": v[1], "false_merges": v[2],
                        "false_merge_rate": v[2] / v[1] if v[1] else 0.0}
                    for k, v in sorted(neg.items())},
    }
    result["counts"] = {
        "pages": len(rows),
        "true_clusters": len(set(truth)),
        "predicted_groups": len(set(pred)),
        "predicted_groups_multi": sum(1 for c in Counter(pred).values() if c > 1),
        "pages_without_group": sum(1 for g in raw_pred if g is None),
        "has_dup_group_column": has_pred,
    }
    result["seconds"] = round(time.perf_counter() - t0, 3)
    return result


def read_labels(path: str) -> list[tuple[int, int, bool]]:
    """The labelled pairs of a ``webdedup calibrate --labels`` file."""
    with open(path, encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    return [(int(r["a"]), int(r["b"]), bool(r["duplicate"])) for r in rows]


def evaluate_labels(db_path, labels: Sequence[tuple[int, int, bool]]) -> dict:
    """Pairwise counts of the predicted groups against labelled pairs (a page ignored, or
    gone, is its own singleton)."""
    conn = sqlite3.connect(db_path)
    try:
        group = dict(conn.execute("SELECT rowid, dup_group FROM pages"))
    finally:
        conn.close()
    counts = Counter()
    for a, b, duplicate in labels:
        together = group.get(a) is not None and group.get(a) == group.get(b)
        counts[(duplicate, together)] += 1
    tp, fp = counts[(True, True)], counts[(False, True)]
    fn, tn = counts[(True, False)], counts[(False, False)]
    return {"pairs": len(labels), "true_positive": tp, "false_positive": fp,
            "false_negative": fn, "true_negative": tn,
            "precision": tp / (tp + fp) if tp + fp else 1.0,
            "recall": tp / (tp + fn) if tp + fn else 1.0}


def run_method(db_path, method: str, **options) -> float:
    """Run webdedup on ``db_path`` with ``method`` (and ``Config`` options); returns the wall
    time in seconds."""
    from webdedup import Config, Deduplicator  # imported here: the API is optional for scoring

    t0 = time.perf_counter()
    Deduplicator(method=method, config=Config(), **options).run_on_db(str(db_path))
    return time.perf_counter() - t0


def format_report(r: dict) -> str:
    c = r["counts"]
    lines = [
        f"corpus: {r['db']}",
        f"pages {c['pages']}, true clusters {c['true_clusters']}, predicted groups "
        f"{c['predicted_groups']} ({c['predicted_groups_multi']} with >1 page, "
        f"{c['pages_without_group']} pages without a group)",
    ]
    if not c["has_dup_group_column"]:
        lines.append("WARNING: pages has no dup_group column: every page counted as a singleton")
    if "run_seconds" in r:
        lines.append(f"webdedup method {r['method']!r} ran in {r['run_seconds']:.2f} s")
    p = r["pairs"]
    lines += [
        "",
        f"{'metric':<22}{'value':>10}",
        f"{'pairwise precision':<22}{r['precision']:>10.4f}",
        f"{'pairwise recall':<22}{r['recall']:>10.4f}",
        f"{'pairwise F1':<22}{r['f1']:>10.4f}",
        f"{'adjusted Rand index':<22}{r['ari']:>10.4f}",
        f"{'true pairs':<22}{p['true_pairs']:>10}",
        f"{'predicted pairs':<22}{p['pred_pairs']:>10}",
        f"{'correct pairs':<22}{p['both']:>10}",
        "",
        f"{'derived kind':<22}{'pages':>8}{'found':>8}{'recall':>9}",
    ]
    for kind, v in r["kind_recall"].items():
        lines.append(f"{kind:<22}{v['pages']:>8}{v['found']:>8}{v['recall']:>9.3f}")
    hn = r["hard_negatives"]
    lines += ["", f"{'hard negatives':<22}{'groups':>8}{'pairs':>8}{'merged':>8}{'rate':>9}"]
    for kind, v in hn["by_kind"].items():
        lines.append(f"{kind:<22}{v['groups']:>8}{v['pairs']:>8}{v['false_merges']:>8}"
                     f"{v['false_merge_rate']:>9.3f}")
    lines.append(f"{'total':<22}{hn['groups']:>8}{hn['pairs']:>8}{hn['false_merges']:>8}"
                 f"{hn['false_merge_rate']:>9.3f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Score webdedup's dup_group against corpus_truth.")
    ap.add_argument("db", help="an SQLite corpus written by make_corpus.py")
    ap.add_argument("--run", metavar="METHOD", help="run webdedup with this method first")
    ap.add_argument("--json", action="store_true", help="print JSON")
    ap.add_argument("--strip-segments", action="store_true",
                    help="with --run: leave repeated segments out (README, 'Repeated segments')")
    ap.add_argument("--segment-min-pages", type=int, default=None, metavar="N",
                    help="with --strip-segments: a line on N pages of its host is repeated")
    ap.add_argument("--whole-text", action="store_true",
                    help="with --run: decide on whole texts, not own content (README, 'Own "
                    "content and thin pages')")
    ap.add_argument("--threshold", type=float, default=None, help="with --run: the threshold")
    ap.add_argument("--labels", metavar="FILE",
                    help="score against these labelled pairs (webdedup calibrate --labels)")
    args = ap.parse_args(argv)
    options: dict = {"strip_segments": True} if args.strip_segments else {}
    if args.whole_text:
        options["own_content"] = False
    if args.threshold is not None:
        options["threshold"] = args.threshold
    if args.segment_min_pages is not None:
        options["segment_min_pages"] = args.segment_min_pages
    run_seconds = run_method(args.db, args.run, **options) if args.run else None
    if args.labels:
        r = {"labels": evaluate_labels(args.db, read_labels(args.labels))}
        if args.run:
            r["method"] = args.run
        if args.json:
            print(json.dumps(r, indent=2))
        else:
            print("\n".join(f"{k:<16}{v}" for k, v in r["labels"].items()))
        return 0
    r = evaluate(args.db)
    if args.run:
        r["method"] = args.run
        r["run_seconds"] = round(run_seconds, 3)
    print(json.dumps(r, indent=2) if args.json else format_report(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
