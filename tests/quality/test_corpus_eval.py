"""Tests of the labelled corpus builder and the evaluator (benchmarks/corpus: make_corpus.py,
evaluate.py)."""

from __future__ import annotations

import hashlib
import os
import random
import sqlite3
import subprocess
import sys
from collections import defaultdict
from fractions import Fraction
from pathlib import Path

import pytest

from benchmarks.corpus import evaluate as evaluate_mod
from benchmarks.corpus import make_corpus

DATA = Path("/work/shared/data")


needs_data = pytest.mark.skipif(not (DATA / "texts.jsonl.gz").exists(),
                                reason="shared data not available")


def _rows(path, table: str) -> list[tuple]:
    con = sqlite3.connect(str(path))
    try:
        key = "id" if table == "pages" else "page_id"
        return con.execute(f"SELECT * FROM {table} ORDER BY {key}").fetchall()
    finally:
        con.close()


@pytest.fixture(scope="module")
def corpus_1000(tmp_path_factory):
    path = tmp_path_factory.mktemp("corpus") / "c1000.sqlite"
    summary = make_corpus.build_corpus(path, 1000, seed=7)
    return path, summary


# ---------------------------------------------------------------------------------------------
# corpus builder
@needs_data
def test_same_seed_same_rows_different_seed_different(tmp_path, corpus_1000):
    path, _ = corpus_1000
    again = tmp_path / "again.sqlite"
    other = tmp_path / "other.sqlite"
    make_corpus.build_corpus(again, 1000, seed=7, measure=False)
    make_corpus.build_corpus(other, 1000, seed=8, measure=False)
    for table in ("pages", "corpus_truth"):
        assert _rows(path, table) == _rows(again, table)
        assert _rows(path, table) != _rows(other, table)


@needs_data
def test_size_kinds_and_truth_consistency(corpus_1000):
    path, summary = corpus_1000
    pages = _rows(path, "pages")
    truth = _rows(path, "corpus_truth")
    assert len(pages) == 1000 and len(truth) == 1000
    assert [p[0] for p in pages] == list(range(1, 1001))
    kinds = {t[2] for t in truth}
    assert kinds == {
        "original", "cjk_copy", *make_corpus.DERIVED_KINDS, *make_corpus.NEGATIVE_KINDS
    }
    assert sum(summary["kinds"].values()) == 1000

    by_id = {t[0]: t for t in truth}
    page = {p[0]: p for p in pages}
    # about 60/30/10
    n_derived = sum(1 for t in truth if t[2] in make_corpus.DERIVED_KINDS)
    n_neg = sum(1 for t in truth if t[2] in make_corpus.NEGATIVE_KINDS[:3])
    assert n_derived == 300 and n_neg == 100  # the CJK originals and negatives come on top
    for pid, cluster, kind, orig, _ng in truth:
        if kind in (*make_corpus.DERIVED_KINDS, "cjk_copy"):
            assert orig is not None and by_id[orig][2] == "original"
            assert cluster == by_id[orig][1]
        else:
            assert orig is None
            assert cluster == pid  # originals and negatives start their own cluster
    # ids are shuffled: derived pages are not next to their originals
    gaps = [abs(t[0] - t[3]) for t in truth if t[3] is not None]
    assert sorted(gaps)[len(gaps) // 2] > 20

    # one canonical URL is one page (one cluster); URL kinds share the original's
    clusters_of_url = defaultdict(set)
    for pid, url, *_ in pages:
        assert url.startswith(("http://", "https://"))
        clusters_of_url[make_corpus.canonical_url(url)].add(by_id[pid][1])
    assert all(len(c) == 1 for c in clusters_of_url.values())
    for pid, _cl, kind, orig, _ng in truth:
        if orig is None:
            continue
        same_url = (make_corpus.canonical_url(page[pid][1])
                    == make_corpus.canonical_url(page[orig][1]))
        assert same_url == (kind in ("url_variant", "recrawl")), (kind, page[pid][1])
        if kind == "exact":
            assert page[pid][3] == page[orig][3]
        if kind == "recrawl":
            assert page[pid][3] != page[orig][3]
        if kind == "truncation":
            ratio = len(page[pid][3]) / len(page[orig][3])
            assert 0.6 < ratio < 0.95

    # hard negatives: every pair of a negative group is in different clusters
    groups = defaultdict(list)
    for t in truth:
        if t[4] is not None:
            groups[t[4]].append(t)
    assert groups
    for members in groups.values():
        assert len(members) >= 2
        assert len({m[1] for m in members}) == len(members)
        neg_kinds = {m[2] for m in members} - {"original"}
        assert len(neg_kinds) == 1
        if neg_kinds == {"short_boilerplate"}:
            texts = [page[m[0]][3] for m in members]
            assert all(len(t.split()) < 50 for t in texts)
            assert len({" ".join(make_corpus.tokens(t)) for t in texts}) == len(texts)
        if neg_kinds == {"half_replaced"}:
            hosts = {make_corpus.urlsplit(page[m[0]][1]).hostname for m in members}
            assert len(hosts) == 1
    # datetimes are ISO 8601
    from datetime import datetime
    for p in pages[:50]:
        datetime.fromisoformat(p[4])
        datetime.fromisoformat(p[5])
        assert p[6] in (None, "external")


@needs_data
def test_near_duplicates_look_alike_and_negatives_less(corpus_1000):
    path, _ = corpus_1000
    page = {p[0]: p[3] for p in _rows(path, "pages")}
    truth = _rows(path, "corpus_truth")
    sims = defaultdict(list)
    for pid, _cl, kind, orig, _ng in truth:
        if orig is not None and kind not in ("recrawl", "url_variant"):
            sims[kind].append(make_corpus.jaccard(make_corpus.shingle_hashes(page[pid]),
                                                  make_corpus.shingle_hashes(page[orig])))
    for kind, values in sims.items():
        values.sort()
        assert values[len(values) // 2] > 0.6, kind
    # the synthesized and real originals are far apart: random original pairs share ~nothing
    originals = [t[0] for t in truth if t[2] == "original"][:200]
    rand = [make_corpus.jaccard(make_corpus.shingle_hashes(page[a]),
                                make_corpus.shingle_hashes(page[b]))
            for a, b in zip(originals[::2], originals[1::2], strict=False)]
    assert max(rand) < 0.2


@needs_data
def test_synthesized_originals_share_almost_no_shingles(tmp_path):
    summary = make_corpus.build_corpus(tmp_path / "s.sqlite", 1000, seed=3, mix=(0.9, 0.05, 0.05),
                                       data_dir=DATA)
    # pool has ~3,000 texts: force synthesis by a larger build would be slow; measure directly
    pool = make_corpus.get_pool(DATA)
    rng = random.Random(1)
    texts = ["\n".join(pool.synth_text(rng)) for _ in range(400)]
    ov = make_corpus.measure_synth_overlap(texts, random.Random(2), sample=400)
    assert ov["share_of_pairs_sharing"] < 0.02
    assert ov["max_pair_jaccard"] < 0.2
    assert summary["pages"] == 1000


#: sha256 of the rows of ``build_corpus(path, 6000, seed=4, measure=False)`` on the shared data
#: (374 synthesized originals), as the generator of 880d31f wrote them
POOL_6000_SEED4 = "dd023ac21326576bdc2d944d47b5bea8a0e287cb125dd8eaa5ddfea7ca756318"


def _digest(path) -> str:
    digest = hashlib.sha256()
    for table in ("pages", "corpus_truth"):
        for row in _rows(path, table):
            digest.update(repr(row).encode())
    return digest.hexdigest()


@needs_data
def test_fresh_sentences_do_not_repeat_the_pools(tmp_path):
    """``--sentences fresh``: a pool sentence drawn twice gives two sentences that share few
    5-word shingles (with the pool's own sentences, all of them), of the same length, a
    third of their words replaced; a fresh corpus is reproducible and not the pool one."""
    pool = make_corpus.get_pool(DATA)
    rng = random.Random(5)
    shared = total = changed = words = 0
    for sentence in pool.sentences["en"][:300]:
        a, b = pool.freshen(sentence, "en", rng), pool.freshen(sentence, "en", rng)
        ha, hb = make_corpus.shingle_hashes(a), make_corpus.shingle_hashes(b)
        shared += len(ha & hb)
        total += len(make_corpus.shingle_hashes(sentence))
        assert len(a.split(" ")) == len(sentence.split(" "))
        changed += sum(x != y for x, y in zip(a.split(" "), sentence.split(" "), strict=True))
        words += len(sentence.split(" "))
    assert shared < 0.1 * total  # about 3 %: 0.7 ** 10
    assert 0.2 < changed / words < 0.35  # 0.3, less the words replaced by themselves
    cjk = pool.sentences["cjk"][0]
    fresh_cjk = [pool.freshen(cjk, "cjk", rng) for _ in range(20)]
    assert {len(x) for x in fresh_cjk} == {len(cjk)} and len(set(fresh_cjk)) == 20
    paths = [tmp_path / f"{name}.sqlite" for name in ("fresh", "again", "pool")]
    for path, sentences in ((paths[0], "fresh"), (paths[2], "pool")):
        make_corpus.build_corpus(path, 6000, seed=4, measure=False, sentences=sentences)
    # again, in another process with another string hash seed (the vocabulary's order)
    code = ("import sys; from benchmarks.corpus import make_corpus; make_corpus.build_corpus("
            "sys.argv[1], 6000, seed=4, measure=False, sentences='fresh')")
    env = dict(os.environ, PYTHONHASHSEED="12345")
    subprocess.run([sys.executable, "-c", code, str(paths[1])], check=True, env=env,
                   cwd=Path(make_corpus.__file__).parents[2])
    assert _rows(paths[0], "pages") == _rows(paths[1], "pages")
    assert _rows(paths[0], "pages") != _rows(paths[2], "pages")
    # the pool corpus is the one built before --sentences existed (the digest of 880d31f's)
    assert _digest(paths[2]) == POOL_6000_SEED4
    kinds = [sorted(t[2] for t in _rows(path, "corpus_truth")) for path in paths]
    assert kinds[0] == kinds[2]  # the same pages of each kind, other texts
    with pytest.raises(ValueError, match="sentences"):
        make_corpus.build_corpus(tmp_path / "x.sqlite", 100, seed=1, sentences="new")


@needs_data
def test_the_corpus_lies_in_id_order_on_disk(tmp_path, monkeypatch):
    """Ids are a random permutation of the pages made, yet the file holds each table's leaves
    in id order, as a crawler's appended table does (a scan by id reads the file front to
    back), and the scratch files that put them there are gone. Small scratch files, so the
    rows pass through several (as they do at millions of pages)."""
    monkeypatch.setattr(make_corpus, "BUCKET_IDS", 700)
    path = tmp_path / "c.sqlite"
    summary = make_corpus.build_corpus(path, 3000, seed=2, measure=False)
    assert summary["reorder_seconds"] >= 0
    assert not list(tmp_path.glob("*.unordered*"))
    with sqlite3.connect(path) as conn:
        ids = [r[0] for r in conn.execute("SELECT id FROM pages ORDER BY id")]
        for table in ("pages", "corpus_truth"):
            leaves = [r[0] for r in conn.execute(
                "SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY path",
                (table,))]
            assert len(leaves) > 5 and leaves == sorted(leaves), table
    assert ids == list(range(1, 3001))


def test_canonical_url_and_variants():
    rng = random.Random(5)
    for url in ("https://www.example.com/a/b?id=3", "http://news.example.org/",
                "https://example.de/x/y.html", "http://Example.com:8080/p?q=1&r=2"):
        for _ in range(30):
            v = make_corpus.url_variant(url, rng)
            assert v != url
            assert make_corpus.canonical_url(v) == make_corpus.canonical_url(url)
            alt = make_corpus.alt_url(url, rng, 123456)
            assert make_corpus.canonical_url(alt) != make_corpus.canonical_url(url)


# ---------------------------------------------------------------------------------------------
# evaluator
def _tiny_db(path, truth: list[int], pred: list, kinds=None, originals=None, negs=None):
    con = sqlite3.connect(str(path))
    con.executescript(make_corpus.SCHEMA)
    con.execute("ALTER TABLE pages ADD COLUMN dup_group INTEGER")
    n = len(truth)
    kinds = kinds or ["original"] * n
    originals = originals or [None] * n
    negs = negs or [None] * n
    for i in range(n):
        con.execute("INSERT INTO pages (id, url, dup_group) VALUES (?, ?, ?)",
                    (i + 1, f"https://e.org/{i}", pred[i]))
        con.execute("INSERT INTO corpus_truth VALUES (?, ?, ?, ?, ?)",
                    (i + 1, truth[i], kinds[i], originals[i], negs[i]))
    con.commit()
    con.close()
    return path


def test_evaluator_hand_computed(tmp_path):
    # truth {1,2,3} {4,5} {6}; prediction {1,2} {3,4,5} {6}
    db = _tiny_db(tmp_path / "t.sqlite", [1, 1, 1, 4, 4, 6], [10, 10, 20, 20, 20, 30])
    r = evaluate_mod.evaluate(db)
    # true pairs 3+1 = 4, predicted pairs 1+3 = 4, correct pairs {1,2} and {4,5} = 2
    assert r["pairs"] == {"n": 6, "both": 2, "true_pairs": 4, "pred_pairs": 4, "all_pairs": 15}
    assert r["precision"] == pytest.approx(0.5)
    assert r["recall"] == pytest.approx(0.5)
    assert r["f1"] == pytest.approx(0.5)
    # ARI = (2 - 4*4/15) / ((4+4)/2 - 4*4/15) = (14/15) / (44/15) = 7/22
    assert r["ari"] == pytest.approx(7 / 22)
    assert r["counts"]["pages"] == 6
    assert r["counts"]["true_clusters"] == 3
    assert r["counts"]["predicted_groups"] == 3


def test_evaluator_null_is_singleton_and_partial(tmp_path):
    # truth {1,2,3,4}; prediction {1,2} {3: NULL} {4: NULL} -> 1 of 6 pairs
    db = _tiny_db(tmp_path / "n.sqlite", [1, 1, 1, 1], [5, 5, None, None])
    r = evaluate_mod.evaluate(db)
    assert r["precision"] == pytest.approx(1.0)
    assert r["recall"] == pytest.approx(1 / 6)
    assert r["f1"] == pytest.approx(2 * (1 / 6) / (1 + 1 / 6))
    assert r["counts"]["predicted_groups"] == 3
    assert r["counts"]["pages_without_group"] == 2


def test_evaluator_extremes(tmp_path):
    truth = [1, 1, 1, 2, 2, 3, 4, 4, 4, 4]
    perfect = _tiny_db(tmp_path / "p.sqlite", truth, [t + 100 for t in truth])
    r = evaluate_mod.evaluate(perfect)
    assert (r["precision"], r["recall"], r["f1"], r["ari"]) == (1.0, 1.0, 1.0, 1.0)

    one = _tiny_db(tmp_path / "o.sqlite", truth, [7] * len(truth))
    r = evaluate_mod.evaluate(one)
    # 3 + 1 + 6 = 10 true pairs out of 45
    assert r["recall"] == 1.0
    assert r["precision"] == pytest.approx(10 / 45)
    assert r["ari"] == pytest.approx(0.0)

    single = _tiny_db(tmp_path / "s.sqlite", truth, [None] * len(truth))
    r = evaluate_mod.evaluate(single)
    assert r["recall"] == 0.0 and r["f1"] == 0.0
    assert r["counts"]["predicted_groups"] == len(truth)


def test_kind_recall_and_hard_negative_merges(tmp_path):
    # page 1 original; 2 url_variant of 1 (found); 3 edit of 1 (missed);
    # 4, 5, 6 a short_boilerplate group (4 and 5 wrongly merged);
    # 7 original + 8 half_replaced: one negative group, merged
    truth = [1, 1, 1, 4, 5, 6, 7, 8]
    kinds = ["original", "url_variant", "edit", "short_boilerplate", "short_boilerplate",
             "short_boilerplate", "original", "half_replaced"]
    originals = [None, 1, 1, None, None, None, None, None]
    negs = [None, None, None, 1, 1, 1, 2, 2]
    pred = [100, 100, None, 200, 200, None, 300, 300]
    db = _tiny_db(tmp_path / "k.sqlite", truth, pred, kinds, originals, negs)
    r = evaluate_mod.evaluate(db)
    assert r["kind_recall"]["url_variant"] == {"pages": 1, "found": 1, "recall": 1.0}
    assert r["kind_recall"]["edit"] == {"pages": 1, "found": 0, "recall": 0.0}
    hn = r["hard_negatives"]
    assert hn["pairs"] == 3 + 1 and hn["false_merges"] == 2
    assert hn["by_kind"]["short_boilerplate"]["false_merges"] == 1
    assert hn["by_kind"]["short_boilerplate"]["pairs"] == 3
    assert hn["by_kind"]["half_replaced"]["false_merges"] == 1


def _brute_force(truth, pred):
    """Pair confusion by looking at every pair; ARI in the Hubert-Arabie form."""
    a = b = c = d = 0
    n = len(truth)
    for i in range(n):
        for j in range(i + 1, n):
            st, sp = truth[i] == truth[j], pred[i] == pred[j]
            if st and sp:
                a += 1
            elif st:
                b += 1
            elif sp:
                c += 1
            else:
                d += 1
    denom = (a + b) * (b + d) + (a + c) * (c + d)
    ari = Fraction(2 * (a * d - b * c), denom) if denom else Fraction(1)
    precision = Fraction(a, a + c) if a + c else Fraction(1)
    recall = Fraction(a, a + b) if a + b else Fraction(1)
    return float(ari), float(precision), float(recall)


def test_ari_matches_brute_force_on_random_labelings():
    rng = random.Random(11)
    for _ in range(200):
        n = rng.randint(2, 40)
        truth = [rng.randint(0, rng.randint(1, n)) for _ in range(n)]
        pred = [rng.randint(0, rng.randint(1, n)) for _ in range(n)]
        if rng.random() < 0.3:  # close to the truth
            pred = [t if rng.random() < 0.8 else -rng.randint(1, 5) for t in truth]
        s = evaluate_mod.scores_from_counts(evaluate_mod.pair_counts(truth, pred))
        ari, precision, recall = _brute_force(truth, pred)
        assert s["ari"] == pytest.approx(ari, abs=1e-9)
        assert s["precision"] == pytest.approx(precision)
        assert s["recall"] == pytest.approx(recall)


@needs_data
def test_evaluate_generated_corpus_with_truth_as_prediction(tmp_path, corpus_1000):
    path, _ = corpus_1000
    db = tmp_path / "copy.sqlite"
    db.write_bytes(Path(path).read_bytes())
    con = sqlite3.connect(str(db))
    con.execute("ALTER TABLE pages ADD COLUMN dup_group INTEGER")
    con.execute("UPDATE pages SET dup_group = (SELECT cluster FROM corpus_truth "
                "WHERE page_id = pages.id)")
    con.commit()
    con.close()
    r = evaluate_mod.evaluate(db)
    assert r["f1"] == 1.0 and r["ari"] == 1.0
    assert r["hard_negatives"]["false_merges"] == 0
    assert r["hard_negatives"]["pairs"] > 0
    assert set(r["kind_recall"]) == {*make_corpus.DERIVED_KINDS, "cjk_copy"}
    assert all(v["recall"] == 1.0 for v in r["kind_recall"].values())
    text = evaluate_mod.format_report(r)
    assert "adjusted Rand index" in text and "same_template" in text


def test_run_option_runs_the_real_webdedup(tmp_path, capsys):
    import json

    db = tmp_path / "r.sqlite"
    make_corpus.build_corpus(str(db), 1000, 3)
    assert evaluate_mod.main([str(db), "--run", "minhash", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["method"] == "minhash"
    # webdedup really annotated the corpus: exact copies and URL variants are found
    assert r["kind_recall"]["exact"]["recall"] == 1.0
    assert r["kind_recall"]["url_variant"]["recall"] == 1.0
    assert r["precision"] > 0.9
