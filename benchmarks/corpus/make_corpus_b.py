#!/usr/bin/env python3
"""A second, independent labelled corpus generator (other edit models than make_corpus.py).

    python -m benchmarks.corpus.make_corpus_b OUT.sqlite --pages N --seed S

Same output as ``make_corpus.py`` (a ``pages`` table and a ``corpus_truth`` table:
``cluster``, ``kind``, ``original_id``, ``negative_group``), so ``evaluate.py`` scores
it. Nothing of make_corpus.py is reused: the pool is cleaned here with its own rule, the copies
are made by other edit models, and the boilerplate comes from the real HTML pages.

Originals are real extracted texts of ``texts.jsonl.gz`` (not those of html/aed, which are used
below), at least 120 words long; a text sharing 10 % of its 8-token shingles with an earlier
kept one is dropped (the pool's own natural near-duplicates would be unlabelled pairs).
Chinese/Japanese texts are cut into pieces of 400-1,500 characters at a 。 boundary.

Derived copies (same cluster as their original):
  typo_edit           character typos (swap, drop, double or replace a letter) in 1-3 % of
                      the words, anywhere in the text
  sentence_edit       one sentence deleted and/or one sentence of another text inserted, each
                      at most 1.5 % of the text's characters
  cms_typography      a CMS's typography: curly quotes and apostrophes, en/em dashes, ellipsis
                      character, soft hyphens in long words, no-break spaces
  syndicated_real     the text inside the real header/footer text of another site's page
                      (html/aed: the page's visible text that is not its article)
  sentence_truncation the text cut at a sentence boundary after 60-90 % of its characters
  cms_mixed           typos in 1 % of the words, CMS typography and a real header/footer
  cjk_substitution    a Chinese/Japanese piece with 1-3 % of its characters replaced by other
                      characters of the text, under another navigation line
Hard negatives (each page its own cluster; pages of one negative_group look alike):
  aed_template        the two different articles of one html/aed site, each inside the real
                      visible boilerplate of its own page
  cookie_banner       cookie-banner-only extractions of different sites (one banner wording)
  short_page          short pages (< 50 words) of one site sharing its template lines
  cjk_template        two different Chinese/Japanese pieces inside one site's navigation
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from random import Random

from benchmarks.corpus.corpus_file import main as corpus_main
from benchmarks.corpus.corpus_file import write_corpus

DEFAULT_DATA = Path(os.environ.get("WEBDEDUP_DATA", "/work/shared/data"))
DERIVED = ("typo_edit", "sentence_edit", "cms_typography", "syndicated_real",
           "sentence_truncation", "cms_mixed")
NEGATIVES = ("aed_template", "cookie_banner", "short_page", "cjk_template")
#: share of pages: originals, derived copies, hard-negative pages, CJK originals + copies
SHARES = (0.58, 0.28, 0.09, 0.05)

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff"
_CJK_CHAR = re.compile(f"[{_CJK}]")
_TOKEN = re.compile(rf"[{_CJK}]|[^\W_{_CJK}]+")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=\S)")
_WORD = re.compile(r"[^\W\d_]{4,}")
HOSTS_A = ("nord", "kappa", "lumen", "vega", "orbit", "delta", "quill", "mosaic", "tandem",
           "harvest", "pioneer", "ember", "lattice", "meridian", "cobalt", "fable")
HOSTS_B = ("wire", "dispatch", "ledger", "pages", "letters", "review", "bureau", "papers",
           "stories", "desk", "feed", "column")
CJK_NAV = ("トップ", "速報", "政治", "経済", "国際", "スポーツ", "天気", "要闻", "财经", "军事",
           "汽车", "房产", "教育", "健康", "旅游", "专题", "会员中心", "网站地图")
BANNER = ("{site} respects your privacy. We and our {n} partners use cookies and similar "
          "technologies to store and access information on your device.\n"
          "Accept all | Decline | Preferences")
SHORT_TEMPLATE = "{site} › {section}\n{title}\n{sentence}\nShare | Email | Print\n© {site}"


def _shingles(text: str, k: int = 8) -> set[bytes]:
    toks = _TOKEN.findall(text.lower())
    grams = (" ".join(toks[i:i + k]) for i in range(max(1, len(toks) - k + 1)))
    return {hashlib.blake2b(g.encode(), digest_size=8).digest() for g in grams}


def _is_cjk(text: str) -> bool:
    return len(_CJK_CHAR.findall(text)) > 0.3 * len(text)


def load_pool(data: Path) -> tuple[list[str], list[str]]:
    """(Latin/other originals, CJK pieces) of texts.jsonl.gz, cleaned of near copies."""
    seen: set[bytes] = set()
    kept: list[str] = []
    cjk: list[str] = []
    with gzip.open(data / "texts.jsonl.gz", "rt", encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    for row in rows:
        text = row["text"].strip()
        if row["source"] == "andythefactory-aed" or not text:
            continue
        sh = _shingles(text)
        if len(sh & seen) >= 0.1 * len(sh):
            continue
        seen |= sh
        if _is_cjk(text):
            cjk.extend(_cjk_pieces(text))
        elif len(_TOKEN.findall(text)) >= 120:
            kept.append(text)
    return kept, cjk


def _cjk_pieces(text: str) -> list[str]:
    pieces, cur = [], ""
    for part in re.split(r"(?<=。)", text):
        cur += part
        if len(cur) >= 400:
            pieces.append(cur[:1500].strip())
            cur = ""
    return [p for p in pieces if len(_CJK_CHAR.findall(p)) >= 300]


def _visible_lines(html: str) -> list[str]:
    import lxml.html

    doc = lxml.html.fromstring(html)
    for bad in doc.xpath("//script|//style|//noscript|//template"):
        bad.drop_tree()
    lines = (" ".join(line.split()) for line in doc.text_content().splitlines())
    return [line for line in lines if line]


def aed_pages(data: Path) -> dict[str, list[dict]]:
    """The html/aed pages by site: body, and header/footer = visible text not in the body."""
    aed = data / "html" / "aed"
    articles = json.loads((aed / "articles.json").read_text(encoding="utf-8"))
    sites: dict[str, list[dict]] = {}
    for key in sorted(articles):
        art = articles[key]
        body = art.get("articleBody") or ""
        path = aed / f"{key}.html.gz"
        if len(body.split()) < 120 or not path.exists():
            continue
        sites.setdefault(art["site"], []).append({"key": key, "body": body, "path": path,
                                                  "title": art.get("title") or ""})
    return {s: p for s, p in sites.items() if len(p) == 2}


def boilerplate(page: dict) -> tuple[str, str]:
    """(header, footer) of a real aed page: its visible lines outside the article body."""
    if "header" not in page:
        with gzip.open(page["path"], "rt", encoding="utf-8", errors="replace") as fh:
            html = fh.read()
        body = " ".join(page["body"].split())
        first = " ".join(page["body"].split()[:8])
        lines = [ln for ln in _visible_lines(html) if 2 <= len(ln.split()) <= 40]
        at = next((i for i, ln in enumerate(lines) if first[:30] in ln), len(lines) // 2)
        outside = [ln for ln in lines if ln not in body]
        head = [ln for ln in lines[:at] if ln in outside][-25:]
        foot = [ln for ln in lines[at:] if ln in outside][:25]
        page["header"], page["footer"] = "\n".join(head), "\n".join(foot)
    return page["header"], page["footer"]


# -------------------------------------------------------------------------------- edit models
def typos(text: str, rng: Random, rate: float) -> str:
    words = list(_WORD.finditer(text))
    if not words:
        return text
    k = max(1, round(rate * len(text.split())))
    chosen = sorted(rng.sample(words, min(k, len(words))), key=lambda m: m.start())
    out, pos = [], 0
    for m in chosen:
        w = m.group()
        i = rng.randrange(1, len(w) - 1)
        op = rng.randrange(4)
        if op == 0:
            new = w[:i] + w[i + 1] + w[i] + w[i + 2:]
        elif op == 1:
            new = w[:i] + w[i + 1:]
        elif op == 2:
            new = w[:i] + w[i] + w[i:]
        else:
            new = w[:i] + rng.choice("aeiounrst".replace(w[i], "")) + w[i + 1:]
        out += [text[pos:m.start()], new]
        pos = m.end()
    return "".join(out) + text[pos:]


def sentence_edit(text: str, other: str, rng: Random) -> str | None:
    budget = 0.015 * len(text)
    sents = _SENTENCE.split(text)
    small = [i for i, s in enumerate(sents) if 20 <= len(s) <= budget]
    extra = [s for s in _SENTENCE.split(other) if 20 <= len(s) <= budget]
    if len(sents) < 4 or (not small and not extra):
        return None
    ops = rng.choice(("delete", "insert", "both"))
    if small and ops in ("delete", "both"):
        del sents[rng.choice(small)]
    if extra and ops in ("insert", "both") or not small:
        sents.insert(rng.randrange(1, len(sents)), rng.choice(extra))
    return " ".join(sents) if len(sents) > 1 else None


def cms_typography(text: str, rng: Random) -> str:
    text = re.sub(r"(?<=\w)'(?=\w)", "\u2019", text)
    text = re.sub(r'"([^"\n]{1,200})"', "\u201c\\1\u201d", text)
    text = re.sub(r"'([^'\n]{1,200})'", "\u2018\\1\u2019", text)
    text = text.replace("...", "\u2026").replace(" - ", rng.choice((" \u2013 ", "\u2014")))
    text = text.replace("--", "\u2014")
    text = re.sub(r"(\d) (\w)", "\\1\u00a0\\2", text)

    def hyphenate(m: re.Match) -> str:
        w = m.group()
        return "\u00ad".join(w[i:i + 4] for i in range(0, len(w), 4))

    return re.sub(r"[^\W\d_]{10,}", hyphenate, text)


def truncate_at_sentence(text: str, rng: Random) -> str | None:
    goal = rng.uniform(0.6, 0.9) * len(text)
    cut = [m.start() for m in _SENTENCE.finditer(text) if m.start() <= goal]
    return text[:cut[-1]] if cut and cut[-1] > 0.5 * len(text) else None


def cjk_substitute(text: str, rng: Random) -> str:
    chars = list(text)
    where = [i for i, c in enumerate(chars) if _CJK_CHAR.match(c)]
    for i in rng.sample(where, max(1, round(rng.uniform(0.01, 0.03) * len(where)))):
        chars[i] = chars[rng.choice(where)]
    return "".join(chars)


# -------------------------------------------------------------------------------- the corpus
def build_corpus(path: str, pages: int, seed: int, data: Path = DEFAULT_DATA) -> dict:
    """Write the corpus to ``path``; returns the number of pages of each kind."""
    rng = Random(seed)
    docs, cjk = load_pool(data)
    sites = aed_pages(data)
    site_names = sorted(sites)
    rng.shuffle(docs)
    rng.shuffle(cjk)
    rows: list[tuple] = []
    truth: list[tuple] = []
    counts: dict[str, int] = {}
    base = datetime(2016, 1, 1, tzinfo=timezone.utc)
    used_hosts: set[str] = set()

    def host() -> str:
        while True:
            h = f"{rng.choice(HOSTS_A)}{rng.choice(HOSTS_B)}{rng.randrange(1000)}.example"
            if h not in used_hosts:
                used_hosts.add(h)
                return h

    def add(text: str, kind: str, cluster: int | None = None, original: int | None = None,
            negative: int | None = None, url_host: str | None = None) -> int:
        pid = len(rows) + 1
        when = base + timedelta(seconds=rng.randrange(8 * 365 * 86400))
        title = " ".join(text.split()[:8])[:80]
        url = f"https://{url_host or host()}/{rng.choice(('a', 'news', 'story', 'p'))}/{pid}"
        rows.append((pid, url, title, text, when.isoformat(), when.isoformat(), None))
        truth.append((pid, cluster if cluster is not None else pid, kind, original, negative))
        counts[kind] = counts.get(kind, 0) + 1
        return pid

    n_neg = int(SHARES[2] * pages)
    n_cjk = int(SHARES[3] * pages) // 2
    n_derived = int(SHARES[1] * pages)
    negative = 0
    # hard negatives, a quarter each (aed pairs limited by the sites there are)
    quota = n_neg // 4
    for site in site_names[: quota // 2]:
        negative += 1
        shared_host = host()
        for page in sites[site]:
            head, foot = boilerplate(page)
            add(f"{head}\n{page['title']}\n{page['body']}\n{foot}", "aed_template",
                negative=negative, url_host=shared_host)
    done = 0
    while done < quota:
        negative += 1
        n = rng.randint(3, 5)
        for _ in range(n):
            site = host()
            add(BANNER.format(site=site.split(".")[0].title(), n=rng.randint(20, 900)),
                "cookie_banner", negative=negative, url_host=site)
        done += n
    done = 0
    sentences = [s for d in docs[:400] for s in _SENTENCE.split(d) if 8 <= len(s.split()) <= 25]
    while done < quota:
        negative += 1
        site, n = host(), rng.randint(3, 4)
        for _ in range(n):
            sent = rng.choice(sentences)
            add(SHORT_TEMPLATE.format(site=site, section=rng.choice(("news", "shop", "events")),
                                      title=" ".join(sent.split()[:5]), sentence=sent),
                "short_page", negative=negative, url_host=site)
        done += n
    n_cjk_neg = min(quota // 2, len(cjk) // 6)  # pairs; the other CJK pieces are originals
    for i in range(0, 2 * n_cjk_neg, 2):
        negative += 1
        site, nav = host(), " | ".join(rng.sample(CJK_NAV, 8))
        for piece in (cjk[-1 - i], cjk[-2 - i]):
            add(f"{nav}\n{piece}\n© {site}", "cjk_template", negative=negative, url_host=site)
    # CJK originals and their copies
    for piece in cjk[: min(n_cjk, len(cjk) - 2 * n_cjk_neg)]:
        orig = add(piece, "original")
        nav = " | ".join(rng.sample(CJK_NAV, 6))
        add(f"{nav}\n{cjk_substitute(piece, rng)}", "cjk_substitution", orig, orig)
    # originals, and derived copies spread over the kinds
    originals = [(add(text, "original"), text) for text in docs[: pages - len(rows) - n_derived]]
    long_enough = [(pid, t) for pid, t in originals if len(t.split()) >= 150]
    made = 0
    while made < n_derived and long_enough:
        pid, text = long_enough[made % len(long_enough)]
        kind = DERIVED[made % len(DERIVED)]
        page = sites[rng.choice(site_names)][rng.randrange(2)]
        if kind == "typo_edit":
            copy = typos(text, rng, rng.uniform(0.01, 0.03))
        elif kind == "sentence_edit":
            copy = sentence_edit(text, rng.choice(docs), rng)
        elif kind == "cms_typography":
            copy = cms_typography(text, rng)
        elif kind == "syndicated_real":
            head, foot = boilerplate(page)
            copy = f"{head}\n{text}\n{foot}"
        elif kind == "sentence_truncation":
            copy = truncate_at_sentence(text, rng)
        else:
            head, foot = boilerplate(page)
            copy = f"{head}\n{cms_typography(typos(text, rng, 0.01), rng)}\n{foot}"
        made += 1
        if copy is not None and copy != text:
            add(copy, kind, pid, pid)
    write_corpus(path, ("url", "title", "content", "datetime", "crawled", "category"), rows,
                 truth)
    return counts


def main(argv: list[str] | None = None) -> int:
    return corpus_main(build_corpus, __doc__.splitlines()[0], DEFAULT_DATA, argv)

if __name__ == "__main__":
    sys.exit(main())
