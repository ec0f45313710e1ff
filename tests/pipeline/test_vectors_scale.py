"""``--method vectors`` at scale: its passes in worker processes, its verification from the
spool, and both give what the one-process, pair-at-a-time code gave (README, "Reworded copies").

The reference is :func:`webdedup.algorithms.vectors.verdict_scores`, which vectorizes and
shingles the two texts of each pair again: the spooled scores must equal it exactly, pair for
pair, on real texts, including pairs that the shingle overlap leaves to Levenshtein.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from random import Random
from typing import Any

import numpy as np
import pytest
from conftest import normalized_texts, real_texts, write_pages

from webdedup import Deduplicator
from webdedup.algorithms import sketch
from webdedup.algorithms import vectors as vec
from webdedup.algorithms.shingles import shingle_hashes_utf8
from webdedup.config import Config
from webdedup.store.spool import Spool

SPEC = Config(method="vectors").near_spec()


def edited(text: str, rng: Random, every: int) -> str:
    """``text`` with one letter changed in every ``every``-th word: it breaks 5-word shingles
    and leaves the characters nearly all alike (the minhash verdict's grey zone)."""
    words = text.split()
    for k in range(rng.randrange(every), len(words), every):
        w = words[k]
        if w[:1].isalpha():
            words[k] = ("q" if w[0] != "q" else "z") + w[1:]
    return " ".join(words)


@pytest.fixture(scope="module")
def texts() -> list[str]:
    base = normalized_texts(300, min_words=60, max_chars=6000)
    rng = Random(5)
    out = list(base)
    for k in range(0, 120, 3):  # near copies: scattered edits, a cut end, a dropped head
        out.append(edited(base[k], rng, rng.choice((8, 12, 20, 40))))
        out.append(" ".join(base[k + 1].split()[: int(len(base[k + 1].split()) * 0.8)]))
        out.append(" ".join(base[k + 2].split()[15:]))
    return out


def spool_of(model: vec.Model, texts: list[str], batch: int) -> Spool:
    spool = Spool()
    for start in range(0, len(texts), batch):
        chunk = texts[start : start + batch]
        spool.add(model.word_rows(chunk), [vec.shingles_of(SPEC, t) for t in chunk])
    return spool


def test_spooled_scores_equal_the_pair_at_a_time_scores(texts: list[str]) -> None:
    model = vec.fit_model(texts, dims=32, seed=1)
    n = len(texts)
    rng = np.random.default_rng(4)
    copies = [(k, 300 + j) for j, k in enumerate(x for k in range(0, 120, 3)
                                                 for x in (k, k + 1, k + 2))]
    random_pairs = [(int(a), int(b)) for a, b in rng.integers(0, n, (600, 2)) if a != b]
    pairs = copies + random_pairs + [(b, a) for a, b in copies[:20]]  # either order
    a = np.array([p for p, _ in pairs])
    b = np.array([q for _, q in pairs])
    expected = vec.verdict_scores(model, SPEC, [texts[i] for i in a], [texts[j] for j in b])
    asked: list[int] = []

    def texts_of(positions: list[int]) -> dict[int, str]:
        asked.extend(positions)
        return {p: texts[p] for p in positions}

    spool = spool_of(model, texts, batch=97)  # batches other than verification's
    try:
        got = []
        for start in range(0, len(pairs), 113):
            got += vec.spooled_scores(SPEC, spool, a[start : start + 113],
                                      b[start : start + 113], texts_of)
    finally:
        spool.close()
    assert got == expected  # exactly: the same floats, rounded the same way
    # the comparison covers every kind of verdict: edges, non-edges, and edges that the
    # characters decide under a shingle overlap below the threshold (the verdict reads the
    # texts of the pairs, each text once a batch)
    shingle = [sketch.overlap(shingle_hashes_utf8(texts[i]), shingle_hashes_utf8(texts[j]))
               for i, j in pairs]
    grey = [k for k, s in enumerate(shingle) if 0.5 <= s < SPEC.threshold]
    by_edit = [k for k in grey if expected[k] >= SPEC.threshold > shingle[k]]
    assert len(grey) >= 20 and len(by_edit) >= 5
    assert sum(s >= SPEC.threshold for s in expected) >= 60
    assert sum(s < 0.5 for s in expected) >= 300
    assert set(asked) == {int(x) for x in np.concatenate([a, b])}


def test_neighbour_arrays_equal_the_pairs_of_a_dictionary() -> None:
    """The array version against the dictionary it replaced, on ties and duplicates."""
    import faiss

    rng = np.random.default_rng(7)
    x = vec.unit_rows(rng.standard_normal((400, 12)).astype(np.float32))
    x[10] = x[20] = x[30]  # ties at cosine 1.0
    index = faiss.IndexFlatIP(12)
    index.add(x)
    scores, neighbours = index.search(x, 6)
    found: dict[tuple[int, int], float] = {}
    for i, (ss, nn) in enumerate(zip(scores, neighbours, strict=True)):
        for s, j in zip(ss.tolist(), nn.tolist(), strict=True):
            if j < 0 or j == i or s < 0.3:
                continue
            key = (i, j) if i < j else (j, i)
            found[key] = max(found.get(key, -1.0), min(1.0, float(s)))
    expected = [(i, j, s) for (i, j), s in sorted(found.items())]
    assert vec.neighbour_pairs(x, k=5, cutoff=0.3) == expected
    assert len(expected) > 400


@pytest.fixture(scope="module")
def reworded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """200 real pages and 60 near copies of them (edited, cut, reworded by dropping words)."""
    base = [t["text"] for t in real_texts(limit=200, min_words=120)]
    rng = Random(11)
    pages = [{"url": f"https://a{i}.example.org/{i}", "content": t} for i, t in enumerate(base)]
    for i in range(60):
        text = base[i]
        copy = (edited(text, rng, 15) if i % 3 == 0
                else " ".join(w for k, w in enumerate(text.split()) if k % 9)
                if i % 3 == 1 else " ".join(text.split()[: len(text.split()) * 4 // 5]))
        pages.append({"url": f"https://copies.example.net/{i}", "content": copy})
    return write_pages(tmp_path_factory.mktemp("scale") / "crawl.sqlite", pages)


def run_of(path: Path, tmp: Path, name: str, **options: Any) -> tuple[list, list]:
    db = tmp / name
    db.write_bytes(path.read_bytes())
    Deduplicator(method="vectors", config=Config(), **options).run_on_db(str(db))
    conn = sqlite3.connect(db)
    try:
        edges = conn.execute("SELECT a, b, score FROM _webdedup_edges ORDER BY a, b").fetchall()
        groups = conn.execute("SELECT id, dup_group, dup_kind FROM pages ORDER BY id").fetchall()
    finally:
        conn.close()
    return edges, groups


def test_worker_processes_give_the_edges_and_groups_of_one_process(
    reworded: Path, tmp_path: Path
) -> None:
    one = run_of(reworded, tmp_path, "one.sqlite", workers=1)
    two = run_of(reworded, tmp_path, "two.sqlite", workers=2)
    assert one == two
    edges, groups = one
    assert len(edges) >= 35
    assert sum(1 for _, g, kind in groups if kind == "near") >= 35


def test_the_vectors_progress_bar_reaches_its_end(
    reworded: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """It stopped at 50% when the SVD sample held every text (no third pass was counted)."""
    db = tmp_path / "bar.sqlite"
    db.write_bytes(reworded.read_bytes())
    Deduplicator(method="vectors", progress=True, workers=1, config=Config()).run_on_db(str(db))
    err = capfd.readouterr().err
    lines = [line for line in err.splitlines() if line.lstrip().startswith("vectors:")]
    assert lines, err
    assert "(100%)" in lines[-1], lines[-1]
    done, total = lines[-1].split()[1].split("/")
    assert done == total


def test_chain_floor_scores_take_any_pages_not_only_the_spooled_nodes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Grouping asks for the score of two exact groups' winners, and a winner need not be the
    page its group's text was spooled under (the 1,000,000-page run ended in a KeyError)."""
    from webdedup.pipeline import phase4_vectors

    base = [t["text"] for t in real_texts(limit=40, min_words=120)]
    pages = [{"url": f"http://a{i}.example.org/a/long/path/{i}", "content": t}
             for i, t in enumerate(base)]
    cut = " ".join(base[0].split()[: len(base[0].split()) * 4 // 5])
    pages.append({"url": "https://b.example.net/c", "content": cut})  # id 41: near page 1
    pages.append({"url": "https://a0.example.org/", "content": base[0]})  # id 42: exact, wins
    db = write_pages(tmp_path / "crawl.sqlite", pages)
    asked: dict[tuple[int, int], float] = {}
    real = phase4_vectors.cluster_edges

    def recording(ctx, verdicts, edges, component, score_of):  # type: ignore[no-untyped-def]
        winner = component[1]
        assert winner == 42  # the https copy won its exact group; page 1 holds the text
        for x, y in ((winner, 41), (41, winner), (1, 41), (winner, 2)):
            asked[(x, y)] = score_of(x, y)
        return real(ctx, verdicts, edges, component, score_of)

    monkeypatch.setattr(phase4_vectors, "cluster_edges", recording)
    Deduplicator(method="vectors", workers=1, config=Config()).run_on_db(str(db))
    model_free = asked[(1, 41)]
    assert asked[(42, 41)] == asked[(41, 42)] == model_free >= SPEC.threshold
    assert asked[(42, 2)] < 0.5
