"""webdedup explain: lookups by id and URL, every similarity measure, the link chain, election."""

from __future__ import annotations

import json
import re
import sqlite3

import pytest
from click.testing import CliRunner, Result
from conftest import make_page, real_texts, write_pages
from test_export import NEAR_URL, VARIANT_1, crawl, page_id  # noqa: F401 - fixture

from benchmarks.corpus import make_corpus
from webdedup import Deduplicator
from webdedup.algorithms.text import normalize_text
from webdedup.cli import cli
from webdedup.output import explain_pair, similarities
from webdedup.output.explain import format_explanation

ORIGINAL_1 = "https://site1.example.org/articles/1"
ORIGINAL_0 = "https://site0.example.org/articles/0"
VARIANT_0 = "http://www.site0.example.org/articles/0/?utm_source=feed&fbclid=abc"


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_url_duplicates_by_id_and_by_url(crawl):  # noqa: F811
    a, b = page_id(crawl, ORIGINAL_0), page_id(crawl, VARIANT_0)
    e = explain_pair(crawl, str(a), VARIANT_0)
    pa, pb = e["pages"]
    assert (pa["id"], pb["id"]) == (a, b)
    assert pa["canonical_url"] == pb["canonical_url"]
    assert e["link"]["same_group"] and e["link"]["linked"]
    assert e["link"]["path"] == [{"from": a, "to": b, "via": "url"}]
    # the canonical wins, and the explanation names the key that decided
    decision = e["election"]["decisions"][0]
    assert decision["between"] == [a, b] and decision["winner"] == pa["canonical_id"]
    assert decision["key"] in e["election"]["order"]
    assert e["election"]["order"][-1] == "lower_id"
    assert set(e["election"]["values"]) >= {str(a), str(b)}


def test_a_url_not_crawled_is_found_by_its_canonical_form(crawl):  # noqa: F811
    unseen = "HTTPS://www.site0.example.org/articles/0?gclid=zzz#top"
    e = explain_pair(crawl, unseen, VARIANT_0)  # (against ORIGINAL_0 itself: the same page)
    assert e["pages"][0]["id"] == page_id(crawl, ORIGINAL_0)
    assert e["pages"][0]["canonical_url"] == e["pages"][1]["canonical_url"]


def test_near_duplicates_scores_and_edge_path(crawl):  # noqa: F811
    a, b = page_id(crawl, ORIGINAL_1), page_id(crawl, NEAR_URL)
    e = explain_pair(crawl, a, b)
    s = e["similarity"]
    assert 0.8 < s["jaccard"] < 1.0
    assert abs(s["minhash_estimate"] - s["jaccard"]) < 0.15
    assert 0.9 < s["levenshtein_ratio"] < 1.0 and 0.8 < s["simhash_similarity"] <= 1.0
    assert s["shingle_size"] == 5
    path = e["link"]["path"]
    assert e["link"]["same_group"] and len(path) == 1
    assert path[0]["via"] == "near" and {path[0]["from"], path[0]["to"]} == {a, b}
    assert 0.9 <= path[0]["score"] <= 1.0 and path[0]["method"] == "minhash"


def test_chain_through_url_variant_and_near_edge(crawl):  # noqa: F811
    """A URL variant of an original, and a near copy of it: url hop, then the edge."""
    variant, original = page_id(crawl, VARIANT_1), page_id(crawl, ORIGINAL_1)
    near = page_id(crawl, NEAR_URL)
    e = explain_pair(crawl, variant, near)
    path = e["link"]["path"]
    assert [step["via"] for step in path] == ["url", "near"]
    assert path[0] == {"from": variant, "to": original, "via": "url"}
    assert path[1]["from"] == original and path[1]["to"] == near
    assert e["link"]["same_group"]
    assert any(d["winner"] == original for d in e["election"]["decisions"])
    res = invoke("explain", str(crawl), VARIANT_1, NEAR_URL)
    assert f"#{variant} -> #{original}: url" in res.output


def test_stored_band_keys_are_shown(tmp_path):
    texts = real_texts()
    pages = [make_page(f"https://a.example/{i}", t["text"], title=f"P{i}")
             for i, t in enumerate(texts[:4])]
    pages.append(make_page("https://a.example/copy", texts[0]["text"] + " one more line",
                           title="copy"))
    path = write_pages(tmp_path / "s.sqlite", pages)
    Deduplicator().run_on_db(path)
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT count(*) FROM _webdedup_sketches").fetchone()[0] == 5
    conn.close()
    e = explain_pair(path, 1, 2)
    assert e["similarity"]["minhash_source"].startswith("computed")
    shared, bands = e["similarity"]["bands_shared"]
    assert bands == 37 and shared == 0  # two different articles: no band in common
    assert e["link"] == {"same_group": False, "group": None, "linked": False, "path": None}
    assert e["similarity"]["jaccard"] < 0.2
    near = explain_pair(path, 1, 5)["similarity"]
    assert near["bands_shared"][0] > 0 and near["jaccard"] > 0.9
    assert "LSH bands shared" in format_explanation(explain_pair(path, 1, 5))


def test_similarities_of_identical_and_disjoint_texts():
    text = normalize_text(real_texts()[0]["text"])
    same = similarities(text, text)
    assert same["jaccard"] == same["minhash_estimate"] == same["levenshtein_ratio"] == 1.0
    assert same["simhash_similarity"] == 1.0
    other = similarities(text, normalize_text(real_texts()[1]["text"]))
    assert other["jaccard"] < 0.1 and other["minhash_estimate"] < 0.2


def test_cli_text_and_json(crawl):  # noqa: F811
    a, b = page_id(crawl, ORIGINAL_1), page_id(crawl, NEAR_URL)
    res = invoke("explain", str(crawl), str(a), NEAR_URL)
    assert res.exit_code == 0, res.output
    for needle in ("canonical URL:", "content hash:", "MinHash estimate", "Jaccard (5-word",
                   "Levenshtein ratio", "SimHash similarity", "same group: yes", "near score",
                   "election order:", "beats"):
        assert needle in res.output, needle
    res = invoke("explain", str(crawl), str(a), str(b), "--json")
    data = json.loads(res.output)
    assert [p["id"] for p in data["pages"]] == [a, b]
    assert set(data) == {"pages", "run", "similarity", "method", "threshold", "link", "election",
                         "verdicts"}


def test_cli_unknown_page_and_unannotated_db(crawl, tmp_path):  # noqa: F811
    res = invoke("explain", str(crawl), "1", "https://nowhere.example/x")
    assert res.exit_code == 3 and "no page 'https://nowhere.example/x'" in res.output
    raw = write_pages(tmp_path / "raw.sqlite", [make_page("https://a.example/", "x")])
    res = invoke("explain", str(raw), "1", "1")
    assert res.exit_code == 3 and "webdedup db" in res.output


@pytest.mark.parametrize("ref", ["999999", "0"])
def test_missing_ids(crawl, ref: str):  # noqa: F811
    res = invoke("explain", str(crawl), ref, "1")
    assert res.exit_code == 3 and "no page" in res.output


@pytest.mark.parametrize("method", ["minhash", "simhash"])
def test_explain_score_is_the_stored_edge_score_for_every_edge(tmp_path, method):
    db = tmp_path / "corpus.sqlite"
    make_corpus.build_corpus(str(db), 1000, 11, measure=False)
    Deduplicator(method=method).run_on_db(db)
    with sqlite3.connect(db) as conn:
        edges = conn.execute("SELECT a, b, score, method FROM _webdedup_edges").fetchall()
    assert len(edges) > 100
    measures = set()
    for a, b, score, edge_method in edges:
        run = explain_pair(db, a, b)["run"]
        assert (run["method"], run["score"]) == (edge_method, score), (a, b, run)
        assert run["edge"] is True
        measures.add(run["measure"])
    if method == "minhash":  # moved copies and contained ones (sparse edits: moved first)
        assert {"moved", "contained"} <= measures <= {"moved", "contained", "levenshtein"}


def test_explain_reports_the_run_measure_not_jaccard(tmp_path):
    text = " ".join(normalize_text(t["text"]) for t in real_texts()[:3])
    words = text.split()[:400]
    full, cut = " ".join(words), " ".join(words[:320])  # an 80% truncation
    db = write_pages(
        tmp_path / "t.sqlite",
        [make_page("https://a.example/full", full), make_page("https://b.example/cut", cut)],
    )
    Deduplicator().run_on_db(db)
    e = explain_pair(db, "https://a.example/full", "https://b.example/cut")
    assert e["run"]["measure"] == "contained" and e["run"]["score"] >= 0.95
    assert e["run"]["shingle_measure"] == "overlap" and e["run"]["shingle_score"] == 1.0
    assert e["similarity"]["jaccard"] < 0.85
    res = invoke("explain", str(db), "1", "2")
    score = f"{e['run']['score']:.4f}"
    assert (
        f"run's score: contained {score} (shingle overlap 1.0000), threshold 0.9 -> an edge"
        in res.output
    )


def test_each_election_decision_is_printed_once_with_dates_as_dates(crawl):  # noqa: F811
    """A URL variant against its canonical: the pair came up twice, once each way round."""
    variant, original = page_id(crawl, VARIANT_0), page_id(crawl, ORIGINAL_0)
    e = explain_pair(crawl, variant, original)
    assert len(e["election"]["decisions"]) == 1
    assert e["election"]["decisions"][0]["winner"] == original
    res = invoke("explain", str(crawl), VARIANT_0, ORIGINAL_0)
    assert res.exit_code == 0, res.output
    beats = [line for line in res.output.splitlines() if " beats " in line]
    assert beats == [beats[0]] and f"#{original} beats #{variant} on newer_datetime" in beats[0]
    assert "2024-03-01 10:00:00 UTC" in beats[0] and f"#{variant}: none" in beats[0]
    assert not re.search(r"\b1[0-9]{9}(\.\d+)?\b", beats[0])  # no epoch seconds


def test_a_page_against_itself_is_refused(crawl):  # noqa: F811
    original = page_id(crawl, ORIGINAL_0)
    res = invoke("explain", str(crawl), str(original), str(original))
    assert res.exit_code == 2 and f"same page, #{original}" in res.output
    assert "beats" not in res.output
    res = invoke("explain", str(crawl), str(original), ORIGINAL_0)  # an id and its URL
    assert res.exit_code == 2 and "both name it" in res.output
