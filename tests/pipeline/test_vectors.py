"""--method vectors: reworded copies of real texts found, template neighbours kept apart.

The crawl: 120 real English texts of ../shared/data, reworded copies of 40 of them (synonyms
swapped in, sentences reordered: synthetic paraphrases made here), and 20 pairs of two other
real texts inside one shared template (the same long header and footer text: a site's
boilerplate). ``minhash`` misses most reworded copies (their shingles are broken); ``vectors``
must find them and must not merge the template pairs.
"""

from __future__ import annotations

import re
import sqlite3
import zlib
from pathlib import Path
from random import Random
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import real_texts, write_pages

from webdedup import Deduplicator
from webdedup.algorithms import vectors as vec
from webdedup.cli import cli
from webdedup.config import Config
from webdedup.errors import ConfigError

SYNONYMS = {
    "said": "stated", "new": "recent", "also": "additionally", "many": "numerous",
    "people": "individuals", "company": "firm", "big": "large", "small": "little",
    "make": "create", "made": "created", "use": "employ", "used": "employed", "help": "assist",
    "about": "around", "because": "since", "often": "frequently", "very": "highly",
    "important": "key", "show": "reveal", "find": "discover", "found": "discovered",
    "need": "require", "get": "obtain", "give": "provide", "think": "believe",
    "however": "yet", "but": "yet", "work": "labour", "year": "twelve months",
    "the": "the", "first": "initial", "time": "moment", "more": "further", "most": "largely",
}
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def reword(text: str, rng: Random) -> str:
    """A synthetic paraphrase: a third of the table's words swapped, sentence pairs swapped."""

    def swap(m: re.Match[str]) -> str:
        word = m.group(0)
        syn = SYNONYMS.get(word.lower())
        return syn if syn and rng.random() < 0.35 else word

    parts = SENTENCE.split(re.sub(r"[A-Za-z]+", swap, " ".join(text.split())))
    for i in range(0, len(parts) - 1, 2):
        parts[i], parts[i + 1] = parts[i + 1], parts[i]
    return " ".join(parts)


def english(text: str) -> bool:
    words = text.lower().split()
    return sum(words.count(w) for w in ("the", "and", "of", "to")) >= 0.06 * len(words)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    texts = [
        t["text"]
        for t in real_texts(limit=1200, min_words=200)
        if english(t["text"]) and len(SENTENCE.split(t["text"])) >= 8
    ][:160]
    assert len(texts) == 160
    rng = Random(3)
    pages: list[dict[str, Any]] = []
    for i, text in enumerate(texts[:120]):
        pages.append({"url": f"https://news{i}.example.org/a/{i}", "content": text})
    copies = {}
    for i in range(40):
        pages.append({"url": f"https://copies.example.net/r/{i}", "content": reword(texts[i], rng)})
        copies[len(pages)] = i + 1  # page id -> original's id
    template = texts[120:160]
    head = " ".join(template[0].split()[:150])  # a long real header and footer of one site
    foot = " ".join(template[1].split()[-120:])
    pairs = []
    for k in range(2, 40, 2):
        ids = []
        for text in (template[k], template[k + 1]):
            body = " ".join(text.split()[:220])
            pages.append({"url": f"https://site.example.com/p/{len(pages)}",
                          "content": f"{head}\n{body}\n{foot}"})
            ids.append(len(pages))
        pairs.append(tuple(ids))
    path = write_pages(tmp_path_factory.mktemp("vectors") / "crawl.sqlite", pages)
    return {"path": path, "copies": copies, "template_pairs": pairs}


def groups_of(path: Path) -> dict[int, int | None]:
    conn = sqlite3.connect(path)
    try:
        return dict(conn.execute("SELECT id, dup_group FROM pages"))
    finally:
        conn.close()


def found(groups: dict[int, int | None], copies: dict[int, int]) -> int:
    return sum(1 for c, o in copies.items() if groups[c] is not None and groups[c] == groups[o])


def copy_of(path: Path, tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    target.write_bytes(path.read_bytes())
    return target


@pytest.fixture(scope="module")
def vectors_run(corpus: dict[str, Any]) -> dict[str, Any]:
    """The crawl after one ``--method vectors`` run (a copy: tests copy it again to change it)."""
    db = copy_of(corpus["path"], corpus["path"].parent, "v.sqlite")
    return {"path": db, "result": Deduplicator(method="vectors").run_on_db(str(db))}


def test_vectors_find_reworded_copies_that_minhash_misses(
    corpus: dict[str, Any], vectors_run: dict[str, Any], tmp_path: Path
) -> None:
    db_v, result = vectors_run["path"], vectors_run["result"]
    db_m = copy_of(corpus["path"], tmp_path, "m.sqlite")
    Deduplicator(method="minhash").run_on_db(str(db_m))
    by_vectors, by_minhash = groups_of(db_v), groups_of(db_m)
    copies = corpus["copies"]
    assert found(by_vectors, copies) >= 36  # of 40
    # minhash finds them too: swapped sentences are moved blocks (its moved ratio), and a
    # third of the synonym table's words is a few per cent of the characters
    assert found(by_minhash, copies) >= 36
    for a, b in corpus["template_pairs"]:  # different articles in one template stay apart
        assert by_vectors[a] != by_vectors[b]
    # no false merge at all: every group is an original with its copy
    sizes: dict[int, int] = {}
    for g in by_vectors.values():
        sizes[g] = sizes.get(g, 0) + 1  # type: ignore[index]
    assert max(sizes.values()) == 2 and sum(1 for s in sizes.values() if s == 2) == found(
        by_vectors, copies
    )
    assert result.method == "vectors" and result.candidates >= result.edges > 0
    conn = sqlite3.connect(db_v)
    methods = {r[0] for r in conn.execute("SELECT DISTINCT method FROM _webdedup_edges")}
    conn.close()
    assert methods == {"vectors"}


def test_vectors_always_make_a_full_run(vectors_run: dict[str, Any], tmp_path: Path) -> None:
    db = copy_of(vectors_run["path"], tmp_path, "full.sqlite")
    messages: list[str] = []
    first = vectors_run["result"]
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO pages (url, content) SELECT url || '?x', content FROM pages "
                 "WHERE id = 1")
    conn.commit()
    conn.close()
    from webdedup.pipeline.run import run_on_db

    second = run_on_db(str(db), Config(method="vectors"), on_message=messages.append)
    assert first.mode == second.mode == "full"
    assert any("--method vectors always makes a full run" in m for m in messages)
    assert second.processed == second.pages == first.pages + 1


def tiny_embedder(texts: list[str]) -> np.ndarray:
    """A local stand-in for a neural embedding: hashed bag of words in 64 dimensions."""
    out = np.zeros((len(texts), 64), dtype=np.float32)
    for i, text in enumerate(texts):
        for word in text.split():
            out[i, zlib.crc32(word.encode()) % 64] += 1.0
    return out


def wrong_shape(texts: list[str]) -> np.ndarray:
    return np.zeros((len(texts) + 1, 4))


def test_explain_on_a_vectors_run_reports_its_stored_score_not_a_levenshtein_one(
    corpus: dict[str, Any], vectors_run: dict[str, Any]
) -> None:
    from webdedup.output import explain_pair, format_explanation

    db = vectors_run["path"]
    conn = sqlite3.connect(db)
    try:
        edges = {(a, b): s for a, b, s in conn.execute("SELECT a, b, score FROM _webdedup_edges")}
    finally:
        conn.close()
    copy, original = next(
        (c, o) for c, o in corpus["copies"].items() if (min(c, o), max(c, o)) in edges
    )
    e = explain_pair(db, str(original), str(copy))
    run = e["run"]
    assert run["measure"] == "vectors" and run["method"] == "vectors"
    assert run["score"] == edges[(min(copy, original), max(copy, original))]
    assert run["edge"] is True and run["recomputed"] is False
    # the minhash verdict is a lower bound of the run's score
    assert run["shingle_score"] <= run["score"]
    text = format_explanation(e)
    assert "stored edge score" in text and "can't be recomputed" in text
    # two different articles of one template: no stored edge, said plainly
    a, b = corpus["template_pairs"][0]
    e = explain_pair(db, str(a), str(b))
    assert e["run"]["score"] is None and e["run"]["edge"] is False
    assert "no stored edge between these two pages" in format_explanation(e)


def test_embedder_hook_gives_the_candidates(corpus: dict[str, Any], tmp_path: Path) -> None:
    db = copy_of(corpus["path"], tmp_path, "embedded.sqlite")
    config = Config(method="vectors", embedder="test_vectors:tiny_embedder")
    from webdedup.pipeline.run import run_on_db

    run_on_db(str(db), config)
    groups = groups_of(db)
    assert found(groups, corpus["copies"]) >= 30
    for a, b in corpus["template_pairs"]:
        assert groups[a] != groups[b]
    # a changed embedder is a changed parameter (a full rebuild of the edges)
    assert Config(method="vectors").fingerprint() != config.fingerprint()
    assert Config(method="minhash").fingerprint() == Config().fingerprint()


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("no_colon", "must be 'module:function'"),
        ("webdedup_no_such_module:embed", "cannot be loaded"),
        ("test_vectors:no_such_function", "cannot be loaded"),
        ("test_vectors:wrong_shape", "one vector a text"),
    ],
)
def test_bad_embedder_is_a_config_error(
    corpus: dict[str, Any], tmp_path: Path, name: str, message: str
) -> None:
    db = copy_of(corpus["path"], tmp_path, "bad.sqlite")
    from webdedup.pipeline.run import run_on_db

    with pytest.raises(ConfigError, match=message) as err:
        run_on_db(str(db), Config(method="vectors", embedder=name))
    assert err.value.exit_code == 2
    conn = sqlite3.connect(db)
    cols = {r[1] for r in conn.execute("PRAGMA table_info(pages)")}
    conn.close()
    assert "dup_group" not in cols  # nothing written


def test_cli_runs_vectors_and_says_so_in_help(corpus: dict[str, Any], tmp_path: Path) -> None:
    res = CliRunner().invoke(cli, ["db", "--help"])
    assert "vectors" in res.output and "full run" in res.output
    conn = sqlite3.connect(corpus["path"])
    pages = [{"url": u, "content": c} for u, c in conn.execute(
        "SELECT url, content FROM pages WHERE id IN (1, 2, 3, 121)")]  # 121: a copy of 1
    conn.close()
    db = write_pages(tmp_path / "small.sqlite", pages)
    res = CliRunner().invoke(cli, ["db", str(db), "--method", "vectors"])
    assert res.exit_code == 0, res.output
    assert "full run" in res.output
    groups = groups_of(db)
    assert groups[1] == groups[4] != groups[2]


def test_neighbour_pairs_are_exact_below_the_flat_limit() -> None:
    rng = np.random.default_rng(2)
    x = vec.unit_rows(rng.standard_normal((300, 16)).astype(np.float32))
    x[150] = x[3]  # an exact copy
    pairs = vec.neighbour_pairs(x, k=3, cutoff=0.0)
    assert (3, 150, pytest.approx(1.0, abs=1e-5)) in [(i, j, s) for i, j, s in pairs]
    sims = x @ x.T
    np.fill_diagonal(sims, -2)
    for i in range(300):  # every row's best neighbour is among the pairs
        j = int(np.argmax(sims[i]))
        assert (min(i, j), max(i, j)) in {(a, b) for a, b, _ in pairs}
