"""webdedup export --topics K: topic clusters of the canonical pages, on real texts.

One crawl of 1,260 real texts of ../shared/data (every third line of texts.jsonl.gz: German,
English, French, Spanish, Polish, Japanese... pages) plus exact copies of some of them, run
through ``webdedup db`` once. What is pinned: the report against its schema, every page in its
canonical's cluster, the CSV column, the HTML grouping, determinism, that pages of one
language tend to share a cluster, and the errors. Exact cluster contents are not pinned.
"""

from __future__ import annotations

import csv
import gzip
import json
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner, Result
from conftest import ROOT, SHARED_DATA, write_pages

from webdedup import Deduplicator
from webdedup.algorithms.topics import fit_topics
from webdedup.cli import cli

SCHEMA = json.loads((ROOT / "schemas" / "report.schema.json").read_text(encoding="utf-8"))
K = 8


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _records(step: int = 3) -> list[dict[str, Any]]:
    out = []
    with gzip.open(SHARED_DATA / "texts.jsonl.gz", "rt", encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            if i % step == 0:
                out.append(json.loads(line))
    return out


def language(text: str) -> str:
    """A rough label from stop words: 'de', 'en' or 'other' (enough to test a tendency)."""
    words = text.lower().split()
    de = sum(words.count(w) for w in ("und", "der", "die", "das", "nicht"))
    en = sum(words.count(w) for w in ("the", "and", "of", "to", "is"))
    if de >= 5 and de > 2 * en:
        return "de"
    if en >= 5 and en > 2 * de:
        return "en"
    return "other"


@pytest.fixture(scope="module")
def crawl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    records = _records()
    pages = [
        {"url": f"https://site{i % 50}.example.org/page/{i}", "title": f"Page {i}",
         "content": r["text"]}
        for i, r in enumerate(records)
    ]
    # exact copies on other hosts: they join their original's group, and so its cluster
    pages += [
        {"url": f"https://mirror.example.net/copy/{i}", "title": f"Copy {i}",
         "content": pages[i]["content"]}
        for i in range(0, 200, 10)
    ]
    path = write_pages(tmp_path_factory.mktemp("topics") / "crawl.sqlite", pages)
    Deduplicator().run_on_db(str(path))
    return path


@pytest.fixture(scope="module")
def exported(crawl: Path) -> dict[str, Any]:
    out = crawl.parent
    res = invoke(
        "export", str(crawl), "--json", str(out / "r.json"), "--csv", str(out / "p.csv"),
        "--html", str(out / "review.html"), "--topics", str(K),
    )
    assert res.exit_code == 0, res.output
    assert f"topic clusters: {K}" in res.output or "topic clusters:" in res.output
    report = json.loads((out / "r.json").read_text(encoding="utf-8"))
    with open(out / "p.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    return {"report": report, "csv": rows, "html": (out / "review.html").read_text("utf-8")}


def test_report_has_topic_clusters_and_passes_the_schema(exported: dict[str, Any]) -> None:
    report = exported["report"]
    jsonschema.Draft202012Validator(SCHEMA).validate(report)
    clusters = report["topic_clusters"]
    assert 2 <= len(clusters) <= K
    assert [c["id"] for c in clusters] == list(range(len(clusters)))
    assert [c["size"] for c in clusters] == sorted((c["size"] for c in clusters), reverse=True)
    canonical = [d for d in report["documents"] if d["is_canonical"]]
    assert sum(c["size"] for c in clusters) == len(canonical)
    for c in clusters:
        assert c["top_terms"] and all(isinstance(t, str) and t for t in c["top_terms"])
        assert 1 <= len(c["sample_pages"]) <= 3
        for s in c["sample_pages"]:
            (doc,) = [d for d in canonical if d["id"] == s["id"]]
            assert doc["cluster"] == c["id"] and s["url"] == doc["url"]


def test_every_page_is_in_its_canonicals_cluster(exported: dict[str, Any]) -> None:
    docs = {d["id"]: d for d in exported["report"]["documents"]}
    copies = [d for d in docs.values() if d["url"].startswith("https://mirror.")]
    assert copies and all(d["dup_kind"] == "exact" for d in copies)
    for d in docs.values():
        if d["canonical_id"] is None:
            assert d["cluster"] is None
        else:
            assert d["cluster"] == docs[d["canonical_id"]]["cluster"] is not None
    by_id = {int(r["id"]): r for r in exported["csv"]}
    assert list(exported["csv"][0])[-1] == "cluster"
    for pid, d in docs.items():
        assert by_id[pid]["cluster"] == ("" if d["cluster"] is None else str(d["cluster"]))


def test_html_review_groups_duplicates_by_topic(exported: dict[str, Any]) -> None:
    page = exported["html"]
    report = exported["report"]
    docs = {d["id"]: d for d in report["documents"]}
    headings = [line for line in page.splitlines() if line.startswith('<h2 class="topic"')]
    assert headings
    for c in report["topic_clusters"]:
        terms = ", ".join(c["top_terms"])
        shown = [h for h in headings if f'id="topic{c["id"]}"' in h]
        assert len(shown) <= 1 and all(terms in h for h in shown)
    # the sections follow their topic's heading: topic ids never go back down
    order = []
    for line in page.splitlines():
        if line.startswith('<h2 class="topic" id="topic'):
            order.append(int(line.split('id="topic')[1].split('"')[0]))
    assert order == sorted(order)
    groups = [d for d in docs.values() if d["is_canonical"] and d["dup_group_size"] > 1]
    assert page.count('<section class="group"') == len(groups)


def test_pages_of_one_language_tend_to_share_clusters(crawl: Path,
                                                      exported: dict[str, Any]) -> None:
    conn = sqlite3.connect(crawl)
    texts = dict(conn.execute("SELECT id, content FROM pages"))
    conn.close()
    canonical = [d for d in exported["report"]["documents"] if d["is_canonical"]]
    labels = [(d["cluster"], language(texts[d["id"]])) for d in canonical]
    langs = Counter(lang for _, lang in labels)
    assert langs["de"] > 100 and langs["en"] > 500  # the crawl is mixed
    # purity: each cluster counted by its most common language
    by_cluster: dict[int, Counter[str]] = {}
    for cluster, lang in labels:
        by_cluster.setdefault(cluster, Counter())[lang] += 1
    purity = sum(c.most_common(1)[0][1] for c in by_cluster.values()) / len(labels)
    baseline = langs.most_common(1)[0][1] / len(labels)
    assert purity >= 0.9 > baseline + 0.1
    # German pages sit in clusters that are mostly German
    german_home = sum(c["de"] for c in by_cluster.values() if c.most_common(1)[0][0] == "de")
    assert german_home >= 0.85 * langs["de"]


def test_same_pages_same_clusters(crawl: Path, exported: dict[str, Any]) -> None:
    res = invoke("export", str(crawl), "--json", "-", "--topics", str(K), "--quiet")
    again = json.loads(res.stdout)
    assert again["topic_clusters"] == exported["report"]["topic_clusters"]
    assert [d["cluster"] for d in again["documents"]] == [
        d["cluster"] for d in exported["report"]["documents"]
    ]


def test_without_topics_the_report_is_as_before(crawl: Path) -> None:
    res = invoke("export", str(crawl), "--json", "-", "--quiet")
    report = json.loads(res.stdout)
    assert "topic_clusters" not in report and "cluster" not in report["documents"][0]


@pytest.mark.parametrize("k", ["0", "-3", "5000"])
def test_bad_k_is_a_usage_error(crawl: Path, k: str) -> None:
    res = invoke("export", str(crawl), "--json", str(crawl.parent / "x.json"), "--topics", k)
    assert res.exit_code == 2
    if k == "5000":
        assert "more clusters than there are canonical pages" in res.output
    else:
        assert "1 or more" in res.output
    assert not (crawl.parent / "x.json").exists()


def test_fit_topics_streams_batches_and_refuses_too_few_texts() -> None:
    texts = [r["text"] for r in _records(step=40)]
    calls = []

    def batches():
        calls.append(1)
        for i in range(0, len(texts), 7):
            yield list(range(i, min(i + 7, len(texts)))), texts[i : i + 7]

    topics = fit_topics(batches, 3, seed=5)
    assert topics.ids.tolist() == list(range(len(texts)))
    assert sorted(set(topics.labels.tolist())) == list(range(len(topics.clusters)))
    assert len(calls) == 2  # a small collection: counted once (kept), then labelled
    with pytest.raises(ValueError, match="cannot make"):
        fit_topics(batches, len(texts) + 1)
