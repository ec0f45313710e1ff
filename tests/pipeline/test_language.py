"""Issue 16 part 1: each page's language (CLD2 since issue 33, offline), stored, exported,
a filter (``--languages``), a crawler's own ``lang`` column, and the language guard of phase 4 —
on the real multilingual texts and WARC crawls of ../shared/data."""

from __future__ import annotations

import gzip
import json
import sqlite3
from contextlib import closing
from functools import cache
from pathlib import Path
from urllib.parse import urlsplit

import jsonschema
import pytest
from click.testing import CliRunner, Result
from conftest import ROOT, SHARED_DATA, make_page, write_pages

from webdedup import Deduplicator
from webdedup.algorithms import language
from webdedup.cli import cli
from webdedup.config import Config
from webdedup.errors import ConfigError

SCHEMA = json.loads((ROOT / "schemas" / "report.schema.json").read_text(encoding="utf-8"))
WARC = SHARED_DATA / "warc"
#: Country-code domains whose sites write one language (the label is the site's, not ours).
TLD = {"de": "de", "at": "de", "pl": "pl", "fr": "fr", "ru": "ru", "br": "pt", "es": "es"}


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@cache
def labelled_texts(per_language: int = 12, min_words: int = 80) -> tuple[tuple[str, str, str], ...]:
    """``(label, url, text)`` of real texts labelled by their site: a one-language country
    domain, or English for the article benchmark pages (their pages say lang="en")."""
    out: list[tuple[str, str, str]] = []
    count: dict[str, int] = {}
    with gzip.open(SHARED_DATA / "texts.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            url, text = rec.get("url") or "", rec["text"]
            if len(text.split()) < min_words:
                continue
            tld = (urlsplit(url).hostname or "").rsplit(".", 1)[-1]
            label = "en" if rec["source"] == "scrapinghub-aeb" else TLD.get(tld)
            if label and count.get(label, 0) < per_language:
                count[label] = count.get(label, 0) + 1
                out.append((label, url, text))
    return tuple(out)


def prepared(path: Path) -> dict[int, tuple[str | None, float | None, str | None]]:
    with closing(sqlite3.connect(path)) as conn:
        return {
            r[0]: tuple(r[1:])
            for r in conn.execute("SELECT id, lang, lang_score, ignored FROM _webdedup_prepared")
        }


def test_the_known_codes_are_the_identifiers_languages():
    """CLD2's languages, with its old codes as ISO 639-1, less its test labels (Klingon, Pig
    Latin) and its script-only ones (Buginese, Gothic)."""
    import pycld2

    codes = dict(pycld2.LANGUAGES)
    aliases = {"iw": "he", "jw": "jv", "zh-Hant": "zh"}
    detected = {aliases.get(codes[n], codes[n]) for n in pycld2.DETECTED_LANGUAGES}
    fake = {"tlh", "zzp", "xx-Bugi", "xx-Goth"}
    assert language.KNOWN_LANGUAGES == tuple(sorted(detected - fake))


def test_detection_matches_the_sites_language_on_real_texts():
    sample = labelled_texts()
    assert {label for label, _, _ in sample} >= {"de", "en", "pl", "fr"}
    right = [language.detect(text).lang == label for label, _, text in sample]
    assert sum(right) / len(right) >= 0.9, sum(right)


def cjk_label(text: str) -> str | None:
    """ja, ko or zh for a text whose letters are mostly Han, kana or Hangul (by Unicode block,
    not by a detector): Japanese when a tenth of them are kana, Korean when a tenth are
    Hangul, else Chinese (by its first 5,000 characters)."""
    text = text[:5000]
    kana = sum(1 for c in text if "\u3040" <= c <= "\u30ff")
    hangul = sum(1 for c in text if "\uac00" <= c <= "\ud7af")
    han = sum(1 for c in text if "\u4e00" <= c <= "\u9fff")
    cjk = kana + hangul + han
    letters = cjk + sum(1 for c in text if c.isalpha() and c.isascii())
    if not letters or cjk < 0.3 * letters:
        return None
    return "ja" if kana >= 0.1 * cjk else "ko" if hangul >= 0.1 * cjk else "zh"


def test_cjk_pages_get_the_language_of_their_script():
    """Every real text of ../shared/data written mostly in CJK (about 50: Chinese news, shops
    and forums, Japanese shops and NHK's easy news, Korean news) gets Chinese, Japanese or
    Korean as its script says, even one of a few space-separated 'words': NHK's 372
    characters are 4, and py3langid's detection left such a text without a language."""
    found: list[tuple[str, str | None, str]] = []
    with gzip.open(SHARED_DATA / "texts.jsonl.gz", "rt", encoding="utf-8") as fh:
        for rec in map(json.loads, fh):
            text = rec["text"]
            if len(text) >= 50 and (label := cjk_label(text)) is not None:
                found.append((label, language.detect(text).lang, rec["url"]))
    assert len(found) >= 40 and {label for label, _, _ in found} == {"ja", "ko", "zh"}
    assert [f for f in found if f[0] != f[1]] == []


def test_a_page_whose_language_changes_after_its_beginning_is_not_confident():
    """A German article framed by a long English page (5,500 characters of English before it,
    3,000 after): reading the first 5,000 characters, all English, detection was sure of
    English, and the guard separated the frame from the article it holds. The sample reads
    the whole page: English at three quarters, under the guard's confidence."""
    sample = labelled_texts()
    english = " ".join(t for label, _, t in sample  # English pages (not a site's Korean one)
                       if label == "en" and language.detect(t) == ("en", 1.0))
    german = next(t for label, _, t in sample if label == "de" and len(t) > 3000)[:3000]
    framed = english[:5500] + "\n" + german + "\n" + english[-3000:]
    assert language.detect(german) == ("de", 1.0)
    found = language.detect(framed)
    assert found.lang == "en" and found.score < language.GUARD_CONFIDENCE, found


def test_detection_reads_a_bounded_sample_of_any_page():
    """Detection costs what it reads: the whole text up to SAMPLE_CHARS characters, and no
    more of a longer one, however long (here 1.6 MB of real texts)."""
    text = " ".join(t for _, _, t in labelled_texts(per_language=1_000))
    assert len(text) > 1_000_000
    assert 0 < sum(map(len, language.sample(text))) <= language.SAMPLE_CHARS
    short = text[: language.SAMPLE_CHARS]
    assert "".join(language.sample(short)) == short


def test_detection_is_deterministic_and_a_mixed_page_is_not_confident():
    """Half German, half English (either order): the main language's share is about half,
    under the guard's confidence; each half alone is confident."""
    sample = labelled_texts()
    de = next(t for label, _, t in sample if label == "de" and len(t) > 2500)
    en = next(t for label, _, t in sample if label == "en" and len(t) > 2500)
    for text in (de[:2400] + " " + en[:2400], en[:2400] + " " + de[:2400]):
        found = language.detect(text)
        assert found == language.detect(text)
        assert found.lang in ("de", "en") and found.score < language.GUARD_CONFIDENCE, found
    assert language.detect(de[:2400]).score >= language.GUARD_CONFIDENCE
    assert language.detect(en[:2400]).score >= language.GUARD_CONFIDENCE
    assert language.detect("two words") == language.NONE  # too short to tell


def test_a_short_half_and_half_page_is_not_confident():
    """As the long mixed pages above, but of 600 to 1,400 characters: English and German
    halves of real texts, each half alone confident of its language. With pieces of 1,000
    characters most of these were 'sure' (score >= 0.9) of one language, one piece read
    whole; so the guard separated a short page from its copy with a long comment in another
    language (README, "Language")."""
    sample = labelled_texts()
    english = [t for label, _, t in sample if label == "en" and len(t) > 1200]
    german = [t for label, _, t in sample if label == "de" and len(t) > 1200]
    checked, sure = 0, []
    for half in (300, 450, 700):
        for e, d in zip(english, german, strict=False):
            e, d = e[: e.find(" ", half)], d[: d.find(" ", half)]
            if language.detect(e).lang != "en" or language.detect(d).lang != "de":
                continue  # a site's page in another language, or too little to tell
            checked += 1
            for found in (language.detect(e + " " + d), language.detect(d + " " + e)):
                if found.score is not None and found.score >= language.GUARD_CONFIDENCE:
                    sure.append((half, found))
    assert checked >= 15
    assert sure == []


@pytest.mark.parametrize("detect", [False, True])
def test_a_new_detection_version_rebuilds_only_the_runs_that_detect(tmp_path, monkeypatch, detect):
    """LANGUAGE_VERSION is how languages are detected: a database whose runs do not detect
    them stays incremental when it changes; one whose runs do gets a full run."""
    from webdedup import config

    db = write_pages(
        tmp_path / "c.sqlite",
        [make_page(f"https://s.example/{i}", t) for i, (_, _, t) in enumerate(labelled_texts(1))],
    )
    monkeypatch.setattr(config, "LANGUAGE_VERSION", config.LANGUAGE_VERSION - 1)
    Deduplicator(detect_language=detect).run_on_db(db)
    monkeypatch.undo()
    mode = Deduplicator(detect_language=detect).run_on_db(db).mode
    assert mode == ("full" if detect else "incremental")


def test_lang_is_stored_and_exported_in_json_csv_and_review(tmp_path):
    db = tmp_path / "cc.sqlite"
    assert invoke("ingest", str(db), str(WARC / "commoncrawl-sample.warc.gz"), "-q").exit_code == 0
    assert invoke("db", str(db), "-q", "--detect-language").exit_code == 0
    rows = prepared(db)
    langs = {lang for lang, _, _ in rows.values()}
    assert {"ru", "nl", "de", "zh"} <= langs  # a Common Crawl sample of several languages
    report, table, page = tmp_path / "r.json", tmp_path / "p.csv", tmp_path / "review.html"
    res = invoke("export", str(db), "--json", str(report), "--csv", str(table),
                 "--html", str(page))
    assert res.exit_code == 0, res.output
    doc = json.loads(report.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(SCHEMA).validate(doc)
    assert {d["id"]: d["lang"] for d in doc["documents"]} == {
        i: lang for i, (lang, _, _) in rows.items()
    }
    header = table.read_text(encoding="utf-8").splitlines()[0].split(",")
    assert "lang" in header


def test_review_page_shows_each_pages_language(tmp_path):
    text = labelled_texts(1)[0][2]
    db = write_pages(tmp_path / "c.sqlite", [
        make_page("https://a.example.de/x", text), make_page("https://b.example.de/x", text),
    ])
    Deduplicator(detect_language=True).run_on_db(db)
    page = tmp_path / "review.html"
    assert invoke("export", str(db), "--html", str(page)).exit_code == 0
    assert '<span class="badge">de</span>' in page.read_text(encoding="utf-8")


def test_languages_filter_keeps_the_other_pages_marked_ignored(tmp_path):
    sample = labelled_texts(3)
    pages = [make_page(f"https://site.example/{i}", text) for i, (_, _, text) in enumerate(sample)]
    pages += [make_page("https://copy.example/de", sample[0][2])]  # an exact copy (German)
    db = write_pages(tmp_path / "c.sqlite", pages)
    res = invoke("db", str(db), "-q", "--languages", "en,de")
    assert res.exit_code == 0, res.output
    rows = prepared(db)
    assert len(rows) == len(pages)  # nothing removed
    for page_id, (lang, _, ignored) in rows.items():
        assert (ignored == "language") == (lang not in ("en", "de")), (page_id, lang, ignored)
    assert any(ignored == "language" for _, _, ignored in rows.values())
    with closing(sqlite3.connect(db)) as conn:
        kinds = dict(conn.execute("SELECT id, dup_kind FROM pages"))
    assert all(kinds[i] == "ignored" for i, (_, _, ign) in rows.items() if ign == "language")
    assert kinds[len(pages)] == "exact"  # the German copy is still grouped


def test_an_unknown_language_code_exits_2_with_the_known_codes(tmp_path):
    db = write_pages(tmp_path / "c.sqlite", [make_page("https://a.example/", "text")])
    res = invoke("db", str(db), "--languages", "en,english")
    assert res.exit_code == 2
    assert "unknown language code(s) english" in res.output and "de, dv, dz, el, en" in res.output
    with pytest.raises(ConfigError, match="at least one language"):
        Config(languages=(" ",))


def test_the_crawlers_own_lang_column_wins_over_detection(tmp_path):
    label, _, text = labelled_texts(1)[0]
    assert label == "de"
    pages = [make_page("https://a.example/1", text, lang="fr-FR"),
             make_page("https://a.example/2", text, lang=""),  # empty: detected
             make_page("https://a.example/3", text + " Ende.")]
    cols = ("url", "content", "lang")
    db = write_pages(tmp_path / "c.sqlite", pages, columns=cols)
    assert invoke("db", str(db), "-q", "--languages", "fr").exit_code == 0
    rows = prepared(db)
    assert rows[1] == ("fr", 1.0, None)
    assert rows[2][0] == "de" and rows[2][2] == "language"
    # mapped under another name
    db2 = write_pages(tmp_path / "d.sqlite", pages, columns=("url", "content", "lang"))
    with closing(sqlite3.connect(db2)) as conn:
        conn.execute("ALTER TABLE pages RENAME COLUMN lang TO sprache")
        conn.commit()
    assert invoke("db", str(db2), "-q", "--column", "lang=sprache").exit_code == 0
    assert prepared(db2)[1][:2] == ("fr", 1.0)


def _quoted_page_pair() -> list[dict[str, str]]:
    """A short German page and a French page that quotes it whole at its end: by their
    shingles the German page is contained in the French one (overlap 1.0), yet each page is
    in one language (the quote is under a tenth of the French page)."""
    sample = labelled_texts(1)
    de = next(t for label, _, t in sample if label == "de")
    fr = next(t for label, _, t in sample if label == "fr")
    short_de = " ".join(de.split()[:60])
    return [make_page("https://news.example.de/artikel", short_de),
            make_page("https://presse.example.fr/revue", fr[:3000] + "\n" + short_de)]


def test_guard_pages_surely_in_different_languages_are_not_near_duplicates(monkeypatch):
    pages = _quoted_page_pair()
    dedup = Deduplicator(lsh_threshold=0.05, detect_language=True)  # LSH proposes the pair
    rows = dedup.run_on_list(pages)
    assert [r["lang"] for r in rows] == ["de", "fr"]
    assert [r["dup_kind"] for r in rows] == [None, None]
    assert rows[0]["dup_group"] != rows[1]["dup_group"]
    monkeypatch.setattr(language, "GUARD_CONFIDENCE", 1.01)  # the guard off: they would be
    rows = dedup.run_on_list(pages)
    assert {r["dup_kind"] for r in rows} == {None, "near"}


def test_guard_leaves_real_mixed_language_pages_to_their_texts():
    """A real bilingual page (Chinese lyrics with their pinyin) and its copy missing its
    last lines: the detections are not confident, so the texts decide — near-duplicates."""
    with gzip.open(SHARED_DATA / "texts.jsonl.gz", "rt", encoding="utf-8") as fh:
        text = next(
            rec["text"] for rec in map(json.loads, fh) if "chineselyrics4u" in (rec["url"] or "")
        )
    lines = text.splitlines()
    copy = "\n".join(lines[: int(len(lines) * 0.95)])
    rows = Deduplicator(min_words=10, detect_language=True).run_on_list([
        make_page("https://lyrics.example/a", text), make_page("https://mirror.example/a", copy),
    ])
    scores = [language.detect(t).score for t in (text, copy)]
    assert any(s < language.GUARD_CONFIDENCE for s in scores), scores
    assert {r["dup_kind"] for r in rows} == {None, "near"}


def test_changing_languages_forces_a_full_run(tmp_path):
    sample = labelled_texts(2)
    db = write_pages(tmp_path / "c.sqlite",
                     [make_page(f"https://s.example/{i}", t) for i, (_, _, t) in enumerate(sample)])
    Deduplicator(detect_language=True).run_on_db(db)
    said: list[str] = []
    Deduplicator(languages=["de"]).run_on_db(db, on_message=said.append)
    assert said and said[0].startswith("full run") and "languages" in said[0]


def test_detection_is_off_unless_asked(tmp_path):
    """Detection costs about as much CPU as the rest of a run: it is opt-in."""
    text = labelled_texts(1)[0][2]
    db = write_pages(tmp_path / "c.sqlite", [make_page("https://a.example.de/x", text)])
    Deduplicator().run_on_db(db)
    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute("SELECT lang FROM _webdedup_prepared").fetchall() == [(None,)]
    said: list[str] = []
    Deduplicator(detect_language=True).run_on_db(db, on_message=said.append)
    assert said and said[0].startswith("full run") and "--detect-language off -> on" in said[0]
    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute("SELECT lang FROM _webdedup_prepared").fetchall() == [("de",)]


@pytest.mark.parametrize("chunk", [1, 2, 100_000])
def test_guard_reads_the_languages_a_chunk_of_edges_at_a_time(monkeypatch, chunk):
    """The same edges dropped whatever the chunk (an edge in a later chunk included), and
    the list itself back when none is."""
    from webdedup.algorithms.cluster import Edges
    from webdedup.pipeline import language_guard

    monkeypatch.setattr(language_guard, "CHUNK", chunk)
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TEMP TABLE run_prepared (id INTEGER PRIMARY KEY, lang, lang_score)")
    conn.executemany("INSERT INTO temp.run_prepared VALUES (?, ?, ?)", [
        (1, "de", 0.99), (2, "de", 0.99), (3, "fr", 0.99), (4, None, None), (5, "fr", 0.99),
    ])
    edges = Edges.of([(1, 2, 0.9), (2, 4, 0.9), (1, 3, 0.9), (4, 5, 0.9), (2, 5, 0.85)])
    assert list(language_guard.keep_same_language(conn, edges).rows()) == [
        (1, 2, 0.9), (2, 4, 0.9), (4, 5, 0.9)]
    same = Edges.of([(1, 2, 0.9), (3, 5, 0.8), (2, 4, 0.7)])
    assert language_guard.keep_same_language(conn, same) is same
