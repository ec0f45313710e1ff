#!/usr/bin/env python3
"""Build a labelled crawl corpus for measuring webdedup's quality.

    python -m benchmarks.corpus.make_corpus OUT.sqlite --pages N --seed S [--mix 0.6,0.3,0.1]

Writes an SQLite file with the crawler's ``pages`` table and a ``corpus_truth`` table that
tells, for every page, its true duplicate cluster, how it was made (``kind``), the page it was
derived from (``original_id``) and, for hard negatives, a ``negative_group`` shared by pages
that look alike but are NOT duplicates. Same arguments give identical table contents.

Originals are the real extracted texts of ``texts.jsonl.gz`` (cleaned: exact copies, near
copies, URL duplicates and very short texts of the pool are dropped so that two originals are
really different pages). Beyond the real pool, new originals are synthesized from sentences
sampled across the whole pool (see ``synth_overlap`` in the summary for how little two of them
share).

Derived duplicates (same cluster as their original):
  url_variant   same page under a URL variant (scheme, www., tracking params, slash, ...)
  recrawl       the same canonical URL re-crawled with changed text
  boilerplate   other header/navigation/footer/cookie block around the same body
  edit          small edits: counters, dates, timestamps, a typo
  truncation    text cut at 70-90 % of its length
  syndication   same article on another domain, with that site's boilerplate
  reorder       paragraphs reordered, or a comments block appended
  exact         exact copy under an unrelated (mirror) URL
Hard negatives (each page its own cluster; pages of one negative_group look alike):
  same_template     two different articles of one real news site (html/aed) with the site's
                    real navigation/footer text (fixtures/aed-template-texts.jsonl.gz); beyond
                    the 210 real pairs, synthetic site templates around synthesized articles
  short_boilerplate short pages (< 50 words) of different sites sharing one cookie/navigation
                    boilerplate, with different site names and link words
  half_replaced     a page with half its paragraphs replaced, under a new path on the same
                    host; its source page (an original) shares the negative_group

The mix (share of originals, derived duplicates, hard-negative pages) is ``DEFAULT_MIX`` and can
be changed with ``--mix``; derived kinds are spread by ``DEFAULT_DERIVED_WEIGHTS`` and negative
kinds by ``DEFAULT_NEGATIVE_WEIGHTS``.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import itertools
import json
import os
import pickle
import re
import sqlite3
import sys
import time
import zlib
from datetime import datetime, timedelta, timezone
from pathlib import Path
from random import Random
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DATA = Path(os.environ.get("WEBDEDUP_DATA", "/work/shared/data"))
AED_FIXTURE = ROOT / "fixtures" / "aed-template-texts.jsonl.gz"

#: share of (originals, derived duplicates, hard-negative pages)
DEFAULT_MIX = (0.6, 0.3, 0.1)
DERIVED_KINDS = ("url_variant", "recrawl", "boilerplate", "edit", "truncation",
                 "syndication", "reorder", "exact", "scattered_edit", "typography")
NEGATIVE_KINDS = ("same_template", "short_boilerplate", "half_replaced", "cjk_same_template")
#: Chinese/Japanese originals (cut from the real CJK texts of the pool) with one copy each
#: (kind ``cjk_copy``), and pairs of different CJK articles in one site template, per page.
CJK_ORIGINAL_SHARE = 0.012
CJK_NEGATIVE_SHARE = 0.006
CJK_PIECE_CHARS = (500, 1400)
CJK_NAV = ("首页", "新闻", "国际", "财经", "科技", "体育", "娱乐", "评论", "视频", "登录",
           "注册", "搜索", "关于我们", "联系我们", "ホーム", "ニュース", "経済", "社会", "ログイン")
DEFAULT_DERIVED_WEIGHTS = {k: 1.0 for k in DERIVED_KINDS}
DEFAULT_NEGATIVE_WEIGHTS = {"same_template": 0.4, "short_boilerplate": 0.3, "half_replaced": 0.3}

MIN_POOL_TOKENS = 25  # shorter pool texts (error pages, bare banners) are not used as originals
MIN_DERIVE_TOKENS = 80  # an original needs this much text to get derived duplicates
# a pool text sharing this much of its sentence text with an earlier one is dropped
POOL_NEAR_DUP_SHARE = 0.3
# --sentences fresh: the share of a drawn sentence's words replaced (Pool.freshen)
FRESH_SHARE = 0.3

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
TOKEN_RE = re.compile(rf"[{_CJK}]|[^\W_{_CJK}]+")
UNSPACED_RE = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")
_SENT_END_RE = re.compile(r"([.!?])\s+")
_CJK_SENT_END_RE = re.compile(r"([。！？])")
_NONWORD_RE = re.compile(r"[\W_]+")
NUMBER_RE = re.compile(r"(?<![\w.,])\d{1,4}(?![\w.,]?\d)")
TRACKING_PARAMS = ("utm_", "fbclid", "gclid", "srsltid", "mc_cid", "mc_eid", "yclid", "msclkid")

STOPWORDS = {
    "en": {"the", "and", "of", "to", "is", "in", "that", "for", "with", "was"},
    "de": {"der", "die", "und", "das", "ist", "nicht", "mit", "sich", "auf", "ein"},
    "fr": {"le", "la", "les", "et", "des", "est", "une", "pour", "dans", "que"},
    "es": {"el", "la", "los", "las", "y", "que", "del", "para", "con", "una"},
}

# ---------------------------------------------------------------------------------------------
# vocabularies for synthetic hosts, boilerplate and cookie banners (written for this corpus)
HOST_A = ("daily", "metro", "global", "open", "north", "south", "city", "river", "green",
          "bright", "silver", "urban", "coastal", "prime", "local", "digital", "modern",
          "smart", "alpine", "pacific", "atlantic", "central", "royal", "true", "clear",
          "swift", "red", "blue", "golden", "iron", "maple", "cedar", "harbor", "summit",
          "valley", "sunny", "polar", "lunar", "solar", "rapid")
HOST_B = ("news", "times", "post", "herald", "journal", "review", "press", "report", "gazette",
          "tribune", "wire", "digest", "observer", "ledger", "courier", "monitor", "insider",
          "today", "weekly", "chronicle", "blog", "guide", "hub", "notes", "magazine", "media",
          "world", "watch", "voice", "signal", "beacon", "bulletin", "dispatch", "forum",
          "standard", "express", "mail", "star", "sun", "market")
TLDS = ("com", "com", "com", "net", "org", "de", "fr", "es", "co.uk", "io", "info", "ch",
        "at", "nl", "it", "com.au", "ca", "jp", "cn", "ru")
SECTIONS = ("news", "politics", "world", "business", "tech", "culture", "sport", "science",
            "health", "travel", "blog", "opinion", "local", "economy", "lifestyle", "article",
            "story", "p", "posts", "wiki", "guide", "reviews")
NAV_WORDS = ("Home", "News", "World", "Politics", "Business", "Tech", "Science", "Health",
             "Sports", "Culture", "Opinion", "Travel", "Video", "Podcasts", "Newsletter",
             "Subscribe", "Log in", "Sign up", "Search", "Menu", "About us", "Contact",
             "Jobs", "Advertise", "Shop", "Events", "Weather", "Local", "Archive", "Help",
             "Startseite", "Politik", "Wirtschaft", "Kultur", "Anmelden", "Accueil", "Monde",
             "Économie", "Connexion", "Inicio", "Deportes", "Cultura", "Suscríbete")
COOKIE_TEMPLATES = (
    "We use cookies to give you the best experience on {site}. By continuing to browse the "
    "site you agree to our use of cookies.\nAccept all | Reject all | Cookie settings",
    "This website uses cookies to improve your experience. We'll assume you're ok with this, "
    "but you can opt-out if you wish.\nAccept | Read More",
    "Wir verwenden Cookies, um Ihnen das beste Nutzererlebnis auf {site} zu bieten. Wenn Sie "
    "fortfahren, stimmen Sie der Verwendung zu.\nAlle akzeptieren | Ablehnen | Einstellungen",
    "{site} utilise des cookies pour améliorer votre expérience de navigation et réaliser des "
    "statistiques de visites.\nTout accepter | Tout refuser | Paramétrer",
    "Utilizamos cookies propias y de terceros para mejorar nuestros servicios en {site}. Si "
    "continúa navegando, consideramos que acepta su uso.\nAceptar | Rechazar | Configurar",
    "Your privacy matters to us. {site} and our partners store and access information on your "
    "device for personalised ads and content.\nI agree | Manage options",
)
FOOTER_TEMPLATES = (
    "© {year} {site}. All rights reserved.",
    "Copyright {year} {site} | Privacy Policy | Terms of Service | Contact",
    "© {site} {year} – Impressum | Datenschutz | AGB",
    "{site} © {year} — Mentions légales | Confidentialité | Plan du site",
    "© {year} {site} · Aviso legal · Política de privacidad",
    "Follow {site} on Facebook, X and Instagram. Sign up for our newsletter.",
)
SHORT_TEMPLATES = (
    "{site}\n{nav}\nWe use cookies to personalise content and ads and to analyse our traffic "
    "on {site}. You can change your choice at any time.\nAccept all | Customise\n"
    "© {year} {site}",
    "{site} | {nav}\nThis site requires JavaScript. Please enable JavaScript in your browser "
    "settings and reload the page.\nContact {site} | Privacy",
    "{site}\n{nav}\nDiese Website verwendet Cookies. Durch die Nutzung von {site} stimmen Sie "
    "der Speicherung zu.\nOK | Mehr erfahren\n© {year} {site}",
    "{site}\n{nav}\nOops! The page you are looking for on {site} could not be found. Try the "
    "search or go back home.\n© {year} {site}",
    "{nav}\nSign in to {site}\nEmail address | Password | Forgot your password? | Create an "
    "account\nBy signing in you accept the terms of {site}.",
)
COMMENT_NAMES = ("anna_k", "Mike R.", "jürgen", "Sophie", "dave1974", "Lucía", "Tom B.",
                 "reader42", "Marie-Claire", "kenji", "O. Novak", "guest")


# ---------------------------------------------------------------------------------------------
# text helpers
def tokens(text: str) -> list[str]:
    return TOKEN_RE.findall(text.lower())


def n_tokens(text: str) -> int:
    return len(TOKEN_RE.findall(text))


def paragraphs(text: str) -> list[str]:
    return [p.strip() for p in text.split("\n") if p.strip()]


def shingle_hashes(text: str, k: int = 5) -> set[int]:
    """Stable (crc32) hashes of the k-token shingles of ``text``."""
    toks = tokens(text)
    if len(toks) < k:
        return {zlib.crc32(" ".join(toks).encode())} if toks else set()
    return {zlib.crc32(" ".join(toks[i:i + k]).encode()) for i in range(len(toks) - k + 1)}


def jaccard(a: set[int], b: set[int]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def sentences(para: str) -> list[str]:
    para = _CJK_SENT_END_RE.sub("\\1\n", _SENT_END_RE.sub("\\1\n", para))
    return [x.strip() for x in para.split("\n") if x.strip()]


def _norm_sentence(s: str) -> str:
    return _NONWORD_RE.sub(" ", s.lower()).strip()


def _bucket(text: str) -> str:
    toks = tokens(text[:4000])
    if not toks:
        return "other"
    cjk = sum(1 for t in toks if len(t) == 1 and re.match(f"[{_CJK}]", t))
    if cjk > 0.3 * len(toks):
        return "cjk"
    tset = set(toks)
    best, score = "other", 2
    for lang in ("en", "de", "fr", "es"):
        hit = len(STOPWORDS[lang] & tset)
        if hit > score:
            best, score = lang, hit
    return best


# ---------------------------------------------------------------------------------------------
# URLs
def canonical_url(url: str) -> str:
    """A conservative canonical form: what every reasonable URL normalizer agrees on."""
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower()
    if host.startswith("www."):
        host = host[4:]
    port = parts.port
    netloc = host if port in (None, 80, 443) else f"{host}:{port}"
    path = parts.path or "/"
    if len(path) > 1 and path.endswith("/"):
        path = path.rstrip("/") or "/"
    query = sorted((k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                   if not k.lower().startswith(TRACKING_PARAMS))
    return urlunsplit(("", netloc, path, urlencode(query), ""))


def url_variant(url: str, rng: Random) -> str:
    """The same page under another URL spelling (canonical_url() is unchanged)."""
    parts = urlsplit(url)
    scheme, host, path, query = parts.scheme or "https", parts.hostname or "", parts.path, \
        parts.query
    port = parts.port
    out = url
    for _ in range(10):
        ops = rng.sample(range(8), rng.randint(1, 3))
        s, h, p, q, frag, pt = scheme, host, path or "/", query, "", port
        for op in ops:
            if op == 0:
                s = "http" if s == "https" else "https"
            elif op == 1:
                h = h[4:] if h.lower().startswith("www.") else "www." + h
            elif op == 2:
                extra = [("utm_source", rng.choice(("twitter", "newsletter", "facebook", "rss"))),
                         ("utm_medium", rng.choice(("social", "email", "feed")))]
                if rng.random() < 0.5:
                    extra.append(("utm_campaign", f"c{rng.randint(1, 999)}"))
                q = "&".join(x for x in (q, urlencode(extra)) if x)
            elif op == 3:
                q = "&".join(x for x in (q, f"fbclid=IwAR{rng.getrandbits(64):016x}") if x)
            elif op == 4:
                if p.endswith("/") and len(p) > 1:
                    p = p.rstrip("/") or "/"
                elif "." not in p.rsplit("/", 1)[-1]:
                    p = p + "/"
            elif op == 5:
                frag = rng.choice(("comments", "top", "section-2", "main"))
            elif op == 6:
                h = h.upper()
            elif op == 7 and pt is None:  # an explicit default port
                pt = 443 if s == "https" else 80
        if pt in (80, 443):
            pt = 443 if s == "https" else 80
        netloc = h if pt is None else f"{h}:{pt}"
        out = urlunsplit((s, netloc, p, q, frag))
        if out != url:
            return out
    return url + "#top"


def absolute_url(url: str | None) -> str:
    """The pool's URL as an absolute http(s) URL ('' when there is none).

    A few benchmark texts carry ids like ``hard::elfaro.net-asamblea.html`` instead of URLs:
    they become ``https://elfaro.net/asamblea.html``.
    """
    url = (url or "").strip()
    if not url or url.startswith(("http://", "https://")):
        return url
    name = url.split("::", 1)[-1].strip("/")
    if "-" in name:
        host, rest = name.split("-", 1)
    else:
        parts = name.split(".")
        host, rest = ".".join(parts[:2]), ".".join(parts[2:])
        rest = rest.replace(".", "/", max(0, rest.count(".") - 1))
    host = host.strip(".").lower() or "example.org"
    return f"https://{host}/{rest}"


def random_host(rng: Random) -> str:
    host = f"{rng.choice(HOST_A)}{rng.choice(HOST_B)}{rng.randint(1, 999)}.{rng.choice(TLDS)}"
    return ("www." + host) if rng.random() < 0.6 else host


def slugify(text: str, max_words: int = 7) -> str:
    words = re.findall(r"[a-z0-9]+", text.lower())[:max_words]
    return "-".join(words) or "article"


def site_name(host: str) -> str:
    base = host.lower().removeprefix("www.").split(".")[0]
    base = re.sub(r"\d+$", "", base) or base
    return base.capitalize()


def alt_url(url: str, rng: Random, uid: int) -> str:
    """Another page (another canonical URL) of the same site holding the same article."""
    parts = urlsplit(url)
    host = parts.hostname or "example.org"
    path = (parts.path or "/").rstrip("/") or ""
    choice = rng.randrange(5)
    if choice == 0:
        return urlunsplit(("https", host, f"/amp{path}/{uid}", "", ""))
    if choice == 1:
        bare = host.removeprefix("www.")
        return urlunsplit(("https", f"m.{bare}", f"{path}/{uid}", parts.query, ""))
    if choice == 2:
        return urlunsplit(("https", host, f"/print{path}", f"id={uid}", ""))
    if choice == 3:
        return urlunsplit(("https", host, f"{path}-{uid}", "", ""))
    return urlunsplit(("https", host, f"/archive/{uid}{path}", "", ""))


def other_site_url(title: str, rng: Random, uid: int, host: str | None = None) -> str:
    host = host or random_host(rng)
    sec = rng.choice(SECTIONS)
    return f"https://{host}/{sec}/{slugify(title)}-{uid}"


# ---------------------------------------------------------------------------------------------
# the real pool
class Pool:
    """Cleaned real texts, the aed template pages and a sentence pool for synthesis."""

    def __init__(self, data_dir: Path = DEFAULT_DATA, aed_fixture: Path = AED_FIXTURE):
        self.docs: list[dict] = []  # originals: url, text, title, date, source
        self.aed: list[dict] = []  # aed pages (same_template negatives)
        self.sentences: dict[str, list[str]] = {}  # bucket -> sentences
        self.dropped: dict[str, int] = {"short": 0, "near_dup": 0, "url_dup": 0}
        self._load(Path(data_dir), Path(aed_fixture))

    def _load(self, data_dir: Path, aed_fixture: Path) -> None:
        seen_sent: set[str] = set()  # normalized sentences of kept texts (near-dup filter)
        seen_url: set[str] = set()
        if aed_fixture.exists():
            with gzip.open(aed_fixture, "rt", encoding="utf-8") as fh:
                aed = [json.loads(line) for line in fh]
        else:  # pragma: no cover - the fixture is committed
            aed = []
        for row in aed:
            self._sentence_keys(row["body"], seen_sent, add=True)
            seen_url.add(canonical_url(row["url"]))
        self.aed = aed
        sent_pool: dict[str, dict[str, None]] = {}
        rows = []
        with gzip.open(data_dir / "texts.jsonl.gz", "rt", encoding="utf-8") as fh:
            for line in fh:
                rows.append(json.loads(line))
        for row in rows:
            if row["source"] == "andythefactory-aed":
                continue  # the aed bodies are the same_template pages
            row["url"] = absolute_url(row.get("url"))
            paras = [" ".join(p.split()) for p in paragraphs(row["text"])]
            text = "\n".join(paras)
            ntok = n_tokens(text)
            if ntok < MIN_POOL_TOKENS:
                self.dropped["short"] += 1
                continue
            if row.get("url"):
                cu = canonical_url(row["url"])
                if cu in seen_url:
                    self.dropped["url_dup"] += 1
                    continue
            sents = [sentences(p) for p in paras]
            keys = [_norm_sentence(x) for ss in sents for x in ss]
            keys = [k for k in keys if len(k) >= 20]
            total = sum(len(k) for k in keys) or 1
            shared = sum(len(k) for k in keys if k in seen_sent)
            if shared / total >= POOL_NEAR_DUP_SHARE:
                self.dropped["near_dup"] += 1
                continue
            seen_sent.update(keys)
            if row.get("url"):
                seen_url.add(canonical_url(row["url"]))
            first = paras[0]
            title = first if len(first) <= 120 else " ".join(first.split()[:10])
            self.docs.append({"url": row.get("url") or "", "text": text, "title": title,
                              "source": row["source"], "tokens": ntok, "paragraphs": len(paras)})
            bucket = _bucket(text)
            bag = sent_pool.setdefault(bucket, {})
            for ss in sents:
                for sent in ss:
                    # words, or characters for CJK
                    nt = len(sent) // 2 if bucket == "cjk" else sent.count(" ") + 1
                    if 8 <= nt <= 60:
                        bag.setdefault(sent, None)
        self.sentences = {b: list(v) for b, v in sorted(sent_pool.items()) if len(v) >= 50}
        self._buckets = list(self.sentences)
        self._bucket_weights = [len(self.sentences[b]) for b in self._buckets]
        self.seen_url = seen_url

    @staticmethod
    def _sentence_keys(text: str, seen: set[str], add: bool) -> list[str]:
        keys = []
        for para in paragraphs(text):
            for sent in sentences(para):
                key = _norm_sentence(sent)
                if len(key) >= 20:
                    keys.append(key)
        if add:
            seen.update(keys)
        return keys

    # synthesis ------------------------------------------------------------------------------
    def pick_bucket(self, rng: Random) -> str:
        return rng.choices(self._buckets, weights=self._bucket_weights)[0]

    def synth_paragraphs(self, rng: Random, n_par: int, bucket: str | None = None) -> list[str]:
        bucket = bucket or self.pick_bucket(rng)
        sents = self.sentences[bucket]
        joiner = "" if bucket == "cjk" else " "
        fresh = getattr(self, "fresh", False)
        out = []
        for _ in range(n_par):
            k = rng.randint(1, 4)
            drawn = (sents[rng.randrange(len(sents))] for _ in range(k))
            if fresh:
                drawn = (self.freshen(s, bucket, rng) for s in drawn)
            out.append(joiner.join(drawn))
        return out

    def freshen(self, sentence: str, bucket: str, rng: Random) -> str:
        """A new sentence from one of the pool's (``--sentences fresh``): each word (each
        character of a CJK sentence) replaced, with probability ``FRESH_SHARE``, by one drawn
        from the bucket's words as often as they occur there (a word is sometimes replaced by
        itself: about 27 % of an English sentence's words change). Two articles that drew the
        same pool sentence keep a given 5-word shingle of it in common with probability
        about (1 - 0.3)^10, 3 %, instead of always (measured: 3.8 % of their shingles in
        English, and a quarter of such sentence pairs still share at least one). So
        unrelated articles share far fewer shingles than with the pool's sentences as they
        are; they still share some, at a rate that does not fall as the corpus grows (the
        square term of the candidates is made smaller, not removed; the small buckets, such
        as cjk's 921 sentences, repeat most). The cjk bucket's vocabulary holds the Latin
        letters, digits and punctuation of its sentences too, so a freshened CJK sentence
        mixes in some of them (not changed: it would change every fresh corpus built so far,
        and the figures of docs/benchmarks.md that were measured on them)."""
        vocab = self._vocabulary(bucket)
        unspaced = bucket == "cjk"
        tokens_ = list(sentence) if unspaced else sentence.split(" ")
        chance = rng.random
        where = [i for i in range(len(tokens_)) if chance() < FRESH_SHARE]
        words = rng.choices(vocab[0], cum_weights=vocab[1], k=len(where))
        for i, word in zip(where, words, strict=True):
            tokens_[i] = word
        return ("" if unspaced else " ").join(tokens_)

    def _vocabulary(self, bucket: str) -> tuple[list[str], list[int]]:
        """The bucket's words (characters for CJK) and their cumulative counts."""
        cache = self.__dict__.setdefault("_vocabularies", {})
        if bucket not in cache:
            counts: dict[str, int] = {}
            for sent in self.sentences[bucket]:
                for tok in (sent if bucket == "cjk" else sent.split(" ")):
                    if tok.strip():
                        counts[tok] = counts.get(tok, 0) + 1
            words = sorted(counts)
            cache[bucket] = (words, list(itertools.accumulate(counts[w] for w in words)))
        return cache[bucket]

    def synth_text(self, rng: Random) -> list[str]:
        if getattr(self, "real_lengths", None):
            return self.synth_real_length(rng)
        return self.synth_paragraphs(rng, rng.randint(4, 10))

    def synth_real_length(self, rng: Random) -> list[str]:
        """Paragraphs up to a length drawn from the real texts' lengths (``--lengths real``)."""
        target = self.real_lengths[rng.randrange(len(self.real_lengths))]
        bucket = self.pick_bucket(rng)
        out: list[str] = []
        size = 0
        while size < target or len(out) < 2:
            para = self.synth_paragraphs(rng, 1, bucket)[0]
            out.append(para)
            size += len(para.encode()) + 1
        return out


# ---------------------------------------------------------------------------------------------
# page builders
def iso(dt: datetime) -> str:
    return dt.strftime("%Y-%m-%dT%H:%M:%S+00:00")


def random_date(rng: Random) -> datetime:
    base = datetime(2015, 1, 1, tzinfo=timezone.utc)
    return base + timedelta(seconds=rng.randrange(9 * 365 * 86400))


def boilerplate_block(site: str, rng: Random) -> tuple[str, str]:
    nav = " | ".join(rng.sample(NAV_WORDS, rng.randint(5, 10)))
    header = [site, nav]
    if rng.random() < 0.6:
        header.append(rng.choice(COOKIE_TEMPLATES).format(site=site))
    footer = [rng.choice(FOOTER_TEMPLATES).format(site=site, year=rng.randint(2015, 2025))]
    if rng.random() < 0.5:
        footer.insert(0, "Related: " + " | ".join(rng.sample(NAV_WORDS, 4)))
    return "\n".join(header), "\n".join(footer)


def _change_number(text: str, rng: Random) -> str:
    nums = list(NUMBER_RE.finditer(text))
    if not nums:
        return text
    m = nums[rng.randrange(len(nums))]
    val = int(m.group())
    new = str(max(0, val + rng.choice((-3, -2, -1, 1, 2, 5, 12))))
    if new == m.group():
        new = str(val + 1)
    return text[:m.start()] + new + text[m.end():]


def _typo(text: str, rng: Random) -> str:
    words = list(re.finditer(r"[^\W\d_]{5,}", text))
    if not words:
        return text + "."
    m = words[rng.randrange(len(words))]
    w = m.group()
    i = rng.randrange(1, len(w) - 2)
    w2 = w[:i] + w[i + 1] + w[i] + w[i + 2:]
    return text[:m.start()] + w2 + text[m.end():]


def make_edit(paras: list[str], rng: Random, when: datetime) -> list[str]:
    """1-3 small edits; the normalized text always changes."""
    base = tokens(" ".join(paras))
    for _ in range(5):
        out = _edit_once(paras, rng, when)
        if tokens(" ".join(out)) != base:
            return out
    return list(paras) + [f"{rng.randint(1, 60)} comments"]


def _edit_once(paras: list[str], rng: Random, when: datetime) -> list[str]:
    out = list(paras)
    n_ops = rng.randint(1, 3)
    for _ in range(n_ops):
        op = rng.randrange(4)
        if op == 0:  # counter: "12 comments" -> "14 comments"
            m = re.match(r"^(\d+) (comments|Kommentare|commentaires|comentarios|shares)$",
                         out[-1])
            if m:
                out[-1] = f"{int(m.group(1)) + rng.randint(1, 9)} {m.group(2)}"
            else:
                out.append(f"{rng.randint(1, 60)} comments")
        elif op == 1:  # timestamp line
            stamp = f"Updated {iso(when + timedelta(hours=rng.randint(1, 72)))}"
            if out[0].startswith("Updated "):
                out[0] = stamp
            else:
                out.insert(0, stamp)
        elif op == 2:  # a number in the text changes
            i = rng.randrange(len(out))
            out[i] = _change_number(out[i], rng)
        else:  # typo fix (or typo)
            i = rng.randrange(len(out))
            out[i] = _typo(out[i], rng)
    return out


def make_scattered_edit(text: str, rng: Random) -> str:
    """1-4 % of the words changed, spread through the text: a typo made or fixed, a word
    replaced by another of the text, a word dropped or doubled, a number changed."""
    words = text.split(" ")
    idx = [i for i, w in enumerate(words) if re.search(r"[^\W_]", w)]
    if not idx:
        return text + " ."
    n = max(2, round(len(idx) * rng.uniform(0.01, 0.04)))
    for i in rng.sample(idx, min(n, len(idx))):
        w = words[i]
        op = rng.randrange(5)
        if op == 0:
            words[i] = _typo(w, rng)
        elif op == 1:
            words[i] = words[rng.choice(idx)]
        elif op == 2:
            words[i] = ""
        elif op == 3:
            words[i] = w + " " + w.strip(".,;:!?")
        else:
            words[i] = _change_number(w, rng) if NUMBER_RE.search(w) else _typo(w, rng)
    out = " ".join(x for x in words if x)
    return out if tokens(out) != tokens(text) else out + " ."


def make_typography(text: str, rng: Random) -> str:
    """A CMS's typography filter: curly quotes and apostrophes, dashes, an ellipsis, soft
    hyphens in long words and zero-width spaces; sometimes one small edit as well."""
    t = re.sub(r'"([^"\n]{1,200})"', "\u201c\\1\u201d", text)
    t = re.sub(r"(\w)'(\w)", "\\1\u2019\\2", t)
    t = t.replace(" -- ", " \u2014 ").replace(" - ", " \u2013 ").replace("...", "\u2026")
    words = t.split(" ")
    for i, w in enumerate(words):
        if len(w) >= 10 and rng.random() < 0.3:
            cut = len(w) // 2
            words[i] = w[:cut] + "\u00ad" + w[cut:]
        elif w.endswith((".", ",")) and rng.random() < 0.05:
            words[i] = w + "\u200b"
    out = " ".join(words)
    if rng.random() < 0.5:
        out = _typo(out, rng)
    return out


def cjk_pieces(text: str, rng: Random) -> list[str]:
    """A CJK text cut at sentence ends into pieces of ``CJK_PIECE_CHARS`` characters."""
    sents = [s for s in re.split(r"(?<=[。！？\n])", text) if s.strip()]
    pieces, cur = [], ""
    target = rng.randint(*CJK_PIECE_CHARS)
    for s in sents:
        cur += s
        if len(cur) >= target:
            pieces.append(cur.strip())
            cur, target = "", rng.randint(*CJK_PIECE_CHARS)
    if len(cur) >= CJK_PIECE_CHARS[0]:
        pieces.append(cur.strip())
    return pieces


def make_cjk_copy(text: str, rng: Random) -> str:
    """A copy of a CJK article: a few characters edited, other navigation text, truncated
    or syndicated (one or two of these)."""
    chars = list(text)
    han = [i for i, c in enumerate(chars) if "\u4e00" <= c <= "\u9fff"]
    for i in rng.sample(han, min(len(han), rng.randint(1, 4))):
        chars[i] = chars[rng.choice(han)] if rng.random() < 0.7 else ""
    out = "".join(chars)
    for op in rng.sample(("nav", "truncate", "syndicate"), rng.randint(1, 2)):
        if op == "nav":
            out = " | ".join(rng.sample(CJK_NAV, 6)) + "\n" + out
        elif op == "truncate":
            out = out[: int(len(out) * rng.uniform(0.8, 0.92))] + "……"
        else:
            site = rng.choice(("新华网", "人民网", "环球时报", "朝日新聞", "日経"))
            out = f"{site} 转载\n{out}\n(来源:{site} 责任编辑:{rng.randint(10, 99)})"
    return out


def make_truncation(text: str, rng: Random) -> str:
    cut = int(len(text) * rng.uniform(0.70, 0.90))
    space = text.rfind(" ", int(cut * 0.95), cut)
    if space > 0:
        cut = space
    out = text[:cut].rstrip()
    return out + rng.choice(("", "", " …", " [...]", "\nRead more"))


def make_reorder(paras: list[str], rng: Random, pool: Pool) -> list[str]:
    if len(paras) >= 3 and rng.random() < 0.55:
        out = list(paras)
        # move one block of paragraphs to another place, or swap two paragraphs
        if rng.random() < 0.5:
            i, j = sorted(rng.sample(range(len(out)), 2))
            out[i], out[j] = out[j], out[i]
        else:
            a = rng.randrange(len(out) - 1)
            b = rng.randint(a + 1, min(len(out), a + 3))
            block = out[a:b]
            del out[a:b]
            pos = rng.choice([p for p in range(len(out) + 1) if p != a] or [0])
            out[pos:pos] = block
        if tokens(" ".join(out)) != tokens(" ".join(paras)):
            return out
    # appended comments block, at most ~20 % of the body
    body_tokens = sum(n_tokens(p) for p in paras)
    budget = max(12, body_tokens // 5)
    comments = []
    used = 0
    while used < budget and len(comments) < 8:
        c = pool.synth_paragraphs(rng, 1)[0]
        if used + n_tokens(c) > budget and comments:
            break
        comments.append(f"{rng.choice(COMMENT_NAMES)}: {c}")
        used += n_tokens(c)
    return list(paras) + [f"{len(comments)} Comments"] + comments


def replace_half(paras: list[str], rng: Random, pool: Pool) -> list[str]:
    """Replace paragraphs holding about half the text with new paragraphs."""
    total = sum(len(p) for p in paras)
    order = list(range(len(paras)))
    rng.shuffle(order)
    out = list(paras)
    replaced = 0
    bucket = pool.pick_bucket(rng)
    for i in order:
        if replaced >= total * 0.45:
            break
        out[i] = pool.synth_paragraphs(rng, 1, bucket)[0]
        replaced += len(paras[i])
    return out


# ---------------------------------------------------------------------------------------------
def _counts(total: int, weights: dict[str, float]) -> dict[str, int]:
    """Split ``total`` by ``weights`` (largest remainder, every kind >= 1 if total allows)."""
    keys = list(weights)
    s = sum(weights.values())
    raw = {k: total * weights[k] / s for k in keys}
    out = {k: int(raw[k]) for k in keys}
    rest = total - sum(out.values())
    for k in sorted(keys, key=lambda k: (-(raw[k] - out[k]), keys.index(k)))[:rest]:
        out[k] += 1
    for k in keys:
        if out[k] == 0 and weights[k] > 0:
            donor = max(keys, key=lambda x: out[x])
            if out[donor] > 1:
                out[donor] -= 1
                out[k] += 1
    return out


_POOL_CACHE: dict[tuple[str, str], Pool] = {}
POOL_VERSION = 5  # bump when the pool cleaning changes: invalidates the on-disk cache
CACHE_DIR = Path(os.environ.get("WEBDEDUP_CORPUS_CACHE",
                                Path.home() / ".cache" / "webdedup-corpus"))


def _pool_cache_file(data_dir: Path) -> Path:
    parts = [str(POOL_VERSION)]
    for f in (data_dir / "texts.jsonl.gz", AED_FIXTURE, Path(__file__)):
        st = f.stat() if f.exists() else None
        parts.append(f"{f}:{st.st_size}:{st.st_mtime_ns}" if st else f"{f}:-")
    digest = hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]
    return CACHE_DIR / f"pool-{digest}.pickle"


def get_pool(data_dir: Path = DEFAULT_DATA) -> Pool:
    """The cleaned pool: from memory, from the on-disk cache, or built (about 5-10 s)."""
    key = (str(data_dir), str(AED_FIXTURE))
    if key in _POOL_CACHE:
        return _POOL_CACHE[key]
    cache = _pool_cache_file(data_dir)
    pool = None
    if cache.exists():
        try:
            with open(cache, "rb") as fh:
                state = pickle.load(fh)  # a dict of plain data: no class reference
            pool = Pool.__new__(Pool)
            pool.__dict__.update(state)
        except Exception:
            pool = None
    if pool is None:
        pool = Pool(data_dir, AED_FIXTURE)
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache.with_suffix(f".{os.getpid()}.tmp")
            with open(tmp, "wb") as fh:
                pickle.dump(pool.__dict__, fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, cache)
        except OSError:  # a read-only home: just no cache
            pass
    _POOL_CACHE[key] = pool
    return pool


SCHEMA = """
CREATE TABLE pages (
    id INTEGER PRIMARY KEY,
    url TEXT,
    title TEXT,
    content TEXT,
    datetime TEXT,
    crawled TEXT,
    category TEXT
);
CREATE TABLE corpus_truth (
    page_id INTEGER PRIMARY KEY,
    cluster INTEGER NOT NULL,
    kind TEXT NOT NULL,
    original_id INTEGER,
    negative_group INTEGER
);
"""


BUCKET_IDS = 100_000  # ids per scratch file: one file's sort fits in memory at real lengths


class _Writer:
    """Writes the corpus's rows as they are made, then copies them into ``path`` in id order.

    Ids are a random permutation of the pages (``_build``), so rows arrive in no id order; a
    table inserted in that order has its B-tree leaves scattered through the file. A crawler's
    table is appended in rowid order and lies in that order on disk, so a scan by id reads it
    front to back; at millions of pages (a file larger than the page cache) a scattered layout
    makes every scan by id a random read. So the rows are appended, as they come, to scratch
    files of ``BUCKET_IDS`` ids each (``<path>.unordered-K``: plain appends, no index), and
    at the end each file in turn is sorted by id and appended to ``path``. Every step reads or
    writes one file front to back, and one sort holds one file's rows, so the copy stays
    linear at ten million pages (``VACUUM INTO`` of one scattered file was not: ~7 MB/s at
    10M). The contents are the same; only where the rows lie changes.
    """

    def __init__(self, path: Path):
        self.path = path
        stale = [path, *path.parent.glob(path.name + ".unordered*")]
        for target in stale:
            for suffix in ("", "-journal", "-wal", "-shm"):
                Path(str(target) + suffix).unlink(missing_ok=True)
        self.buckets: dict[int, sqlite3.Connection] = {}
        self.pending: dict[int, tuple[list[tuple], list[tuple]]] = {}
        self.rows = 0
        self.kinds: dict[str, int] = {}

    def _bucket_path(self, k: int) -> Path:
        return self.path.with_name(f"{self.path.name}.unordered-{k}")

    def add(self, pid: int, url: str, title: str, content: str, dt: datetime,
            crawled: datetime, category: str | None, cluster: int, kind: str,
            original_id: int | None, negative_group: int | None) -> None:
        pages, truth = self.pending.setdefault((pid - 1) // BUCKET_IDS, ([], []))
        pages.append((pid, url, title, content, iso(dt), iso(crawled), category))
        truth.append((pid, cluster, kind, original_id, negative_group))
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        self.rows += 1
        if self.rows >= 20000:
            self.flush()

    def flush(self) -> None:
        for k, (pages, truth) in self.pending.items():
            con = self.buckets.get(k)
            if con is None:
                con = self.buckets[k] = sqlite3.connect(str(self._bucket_path(k)))
                con.executescript(
                    "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
                    "CREATE TABLE pages (id, url, title, content, datetime, crawled, category);"
                    "CREATE TABLE corpus_truth (page_id, cluster, kind, original_id,"
                    " negative_group);")
            con.executemany("INSERT INTO pages VALUES (?,?,?,?,?,?,?)", pages)
            con.executemany("INSERT INTO corpus_truth VALUES (?,?,?,?,?)", truth)
            con.commit()
        self.pending.clear()
        self.rows = 0

    def close(self) -> None:
        self.flush()
        t0 = time.perf_counter()
        con = sqlite3.connect(str(self.path), isolation_level=None)
        con.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
                          "PRAGMA cache_size=-262144;" + SCHEMA)
        for k in sorted(self.buckets):
            self.buckets.pop(k).close()
            scratch = self._bucket_path(k)
            con.execute("ATTACH ? AS b", (str(scratch),))
            con.execute("BEGIN")
            con.execute("INSERT INTO pages SELECT * FROM b.pages ORDER BY id")
            con.execute("INSERT INTO corpus_truth SELECT * FROM b.corpus_truth ORDER BY page_id")
            con.execute("COMMIT")
            con.execute("DETACH b")
            scratch.unlink()
        con.close()
        self.reorder_seconds = time.perf_counter() - t0


def measure_synth_overlap(texts: list[str], rng: Random, sample: int = 1000) -> dict:
    """How much do synthesized originals share? 5-token shingles over a sample of them."""
    if len(texts) < 2:
        return {"docs": len(texts)}
    idx = sorted(rng.sample(range(len(texts)), min(sample, len(texts))))
    shingles = [shingle_hashes(texts[i]) for i in idx]
    owners: dict[int, list[int]] = {}
    for d, sh in enumerate(shingles):
        for h in sh:
            owners.setdefault(h, []).append(d)
    pair_shared: dict[tuple[int, int], int] = {}
    for docs in owners.values():
        if 1 < len(docs) <= 50:
            for a in range(len(docs)):
                for b in range(a + 1, len(docs)):
                    key = (docs[a], docs[b])
                    pair_shared[key] = pair_shared.get(key, 0) + 1
    n = len(shingles)
    pairs = n * (n - 1) // 2
    jac = [c / (len(shingles[a]) + len(shingles[b]) - c) for (a, b), c in pair_shared.items()]
    docs_sharing = sum(1 for sh in shingles if any(len(owners[h]) > 1 for h in sh))
    shared_frac = [sum(1 for h in sh if len(owners[h]) > 1) / len(sh) for sh in shingles if sh]
    return {
        "docs": n,
        "pairs": pairs,
        "pairs_sharing_any_shingle": len(pair_shared),
        "share_of_pairs_sharing": len(pair_shared) / pairs if pairs else 0.0,
        "max_pair_jaccard": max(jac, default=0.0),
        "pairs_jaccard_over_0.05": sum(1 for j in jac if j > 0.05),
        "mean_shingle_fraction_shared_with_any_other": sum(shared_frac) / max(1, len(
            shared_frac)),
        "docs_sharing_any_shingle": docs_sharing,
    }


def build_corpus(path, pages: int, seed: int, mix: tuple[float, float, float] = DEFAULT_MIX,
                 derived_weights: dict[str, float] | None = None,
                 negative_weights: dict[str, float] | None = None,
                 data_dir: Path = DEFAULT_DATA, measure: bool = True,
                 lengths: str = "short", sentences: str = "pool") -> dict:
    """Write a labelled corpus of exactly ``pages`` pages to ``path``; return a summary.

    ``lengths="short"`` (the default) synthesizes originals of 4-10 paragraphs (about 2 KB);
    ``lengths="real"`` makes each synthesized original as long as a real text of the pool
    drawn at random (UTF-8 bytes: mean about 8.5 KB, median 5 KB, a tail beyond 300 KB), so
    the whole corpus has the text lengths of real article pages.

    ``sentences="pool"`` (the default) builds synthesized texts from the pool's sentences as
    they are; ``sentences="fresh"`` replaces about 30 % of the words of each one drawn
    (:meth:`Pool.freshen`). The pool holds some 200,000 sentences, so at millions of pages
    two unrelated articles of one language share one of them at a rate that does not fall as
    the corpus grows, and their candidate pairs grow as the square of the pages
    (docs/benchmarks.md, "What the candidates are"); fresh sentences share far fewer
    shingles (that square term is made smaller, not removed).
    """
    if lengths not in ("short", "real"):
        raise ValueError(f"lengths must be 'short' or 'real', got {lengths!r}")
    if sentences not in ("pool", "fresh"):
        raise ValueError(f"sentences must be 'pool' or 'fresh', got {sentences!r}")
    t0 = time.perf_counter()
    if pages < 20:
        raise ValueError("need at least 20 pages")
    derived_weights = derived_weights or DEFAULT_DERIVED_WEIGHTS
    negative_weights = negative_weights or DEFAULT_NEGATIVE_WEIGHTS
    pool = get_pool(Path(data_dir))
    pool.real_lengths = (
        sorted(len(d["text"].encode()) for d in pool.docs) if lengths == "real" else []
    )
    pool.fresh = sentences == "fresh"
    try:
        return _build(path, pages, seed, mix, derived_weights, negative_weights, measure,
                      lengths, sentences, pool, t0)
    finally:  # the pool is shared by the process (get_pool): leave it as it was found
        pool.real_lengths, pool.fresh = [], False


def _build(path, pages: int, seed: int, mix: tuple[float, float, float],
           derived_weights: dict[str, float], negative_weights: dict[str, float],
           measure: bool, lengths: str, sentences: str, pool: Pool, t0: float) -> dict:
    rng = Random(f"webdedup-corpus:{seed}")

    share_o, share_d, share_n = (x / sum(mix) for x in mix)
    n_neg = round(pages * share_n)
    n_der = round(pages * share_d)
    cjk_docs = [d for d in pool.docs if len(UNSPACED_RE.findall(d["text"])) > 0.3 * len(d["text"])]
    cjk_rng = Random(f"webdedup-corpus-cjk:{seed}")
    cjk_texts = [p for d in cjk_docs for p in cjk_pieces(d["text"], cjk_rng)]
    cjk_rng.shuffle(cjk_texts)
    n_cjk = min(len(cjk_texts) // 2, max(1, round(pages * CJK_ORIGINAL_SHARE)))
    n_cjk_neg = min((len(cjk_texts) - n_cjk) // 2, max(1, round(pages * CJK_NEGATIVE_SHARE)))
    cjk_originals, cjk_negatives = cjk_texts[:n_cjk], cjk_texts[n_cjk : n_cjk + 2 * n_cjk_neg]
    n_orig = pages - n_neg - n_der - 2 * n_cjk - 2 * n_cjk_neg
    neg_counts = _counts(n_neg, negative_weights) if n_neg else dict.fromkeys(negative_weights, 0)
    # same_template pages come in pairs, short_boilerplate in groups of 2-4
    if neg_counts.get("same_template", 0) % 2:
        neg_counts["same_template"] -= 1
        neg_counts["half_replaced"] = neg_counts.get("half_replaced", 0) + 1
    if neg_counts.get("short_boilerplate", 0) == 1:
        neg_counts["short_boilerplate"] = 0
        neg_counts["half_replaced"] = neg_counts.get("half_replaced", 0) + 1
    der_counts = _counts(n_der, derived_weights) if n_der else {}

    # --- originals: a sample of the real pool, then synthesized ones -----------------------
    cjk_ids = {id(d) for d in cjk_docs}  # their pieces are originals of their own
    usable = [i for i, d in enumerate(pool.docs) if id(d) not in cjk_ids]
    n_real = min(n_orig, len(usable))
    real_idx = rng.sample(usable, n_real)
    n_synth = n_orig - n_real

    # page ids are a random permutation; cluster of an original = its page id
    ids = list(range(1, pages + 1))
    rng.shuffle(ids)
    next_id = iter(ids)
    uid_counter = iter(range(100000, 10**9))

    # which originals get which derived pages / half_replaced negatives
    def eligible(i: int) -> bool:
        return i >= n_real or pool.docs[real_idx[i]]["tokens"] >= MIN_DERIVE_TOKENS

    elig = [i for i in range(n_orig) if eligible(i)]
    elig4 = [i for i in elig if i >= n_real or pool.docs[real_idx[i]]["paragraphs"] >= 4]
    plan: dict[int, list[str]] = {}
    for kind in DERIVED_KINDS:
        for _ in range(der_counts.get(kind, 0)):
            plan.setdefault(rng.choice(elig), []).append(kind)
    half_src = rng.sample(elig4, min(len(elig4), neg_counts.get("half_replaced", 0)))
    missing = neg_counts.get("half_replaced", 0) - len(half_src)
    if missing:  # tiny real pools: move the rest to short_boilerplate
        neg_counts["half_replaced"] -= missing
        neg_counts["short_boilerplate"] = neg_counts.get("short_boilerplate", 0) + missing
    for i in half_src:
        plan.setdefault(i, []).append("half_replaced")

    w = _Writer(Path(path))
    neg_group = 0
    synth_texts: list[str] = []
    crawl_base = datetime(2024, 3, 1, tzinfo=timezone.utc)

    for i in range(n_orig):
        # ---- the original page
        if i < n_real:
            doc = pool.docs[real_idx[i]]
            paras = paragraphs(doc["text"])
            title = doc["title"]
            url = doc["url"] or other_site_url(title, rng, next(uid_counter))
        else:
            paras = pool.synth_text(rng)
            title = " ".join(paras[0].split()[:10])[:120]
            url = other_site_url(title, rng, next(uid_counter))
            if len(synth_texts) < 5000:  # enough for the overlap measure; bounded memory
                synth_texts.append("\n".join(paras))
        pub = random_date(rng)
        if rng.random() < 0.25:  # crawler-visible metadata lines: a date and a counter
            paras = [f"Published {pub.strftime('%d.%m.%Y %H:%M')}"] + paras + \
                [f"{rng.randint(0, 40)} comments"]
        text = "\n".join(paras)
        crawled = crawl_base + timedelta(seconds=rng.randrange(30 * 86400))
        pid = next(next_id)
        cat = "external" if rng.random() < 0.1 else None
        groups = None
        kinds_here = plan.get(i, [])
        if "half_replaced" in kinds_here:
            neg_group += 1
            groups = neg_group
        w.add(pid, url, title, text, pub, crawled, cat, pid, "original", None, groups)

        # ---- its derived pages
        host = urlsplit(url).hostname or "example.org"
        for kind in kinds_here:
            did = next(next_id)
            uid = next(uid_counter)
            d_url, d_title, d_text, d_pub, d_cat = url, title, text, pub, cat
            d_crawled = crawled + timedelta(hours=rng.randint(1, 24 * 60))
            if kind == "url_variant":
                d_url = url_variant(url, rng)
                if rng.random() < 0.3:  # a re-crawl of the same page: a counter moved
                    d_text = "\n".join(make_edit(paras, rng, pub)) if rng.random() < 0.5 \
                        else text
            elif kind == "recrawl":
                d_url = url if rng.random() < 0.6 else url_variant(url, rng)
                r = rng.random()
                if r < 0.45:
                    d_text = "\n".join(replace_half(paras, rng, pool))
                elif r < 0.75:
                    d_text = "\n".join(pool.synth_text(rng))  # redesign / blackout / error
                else:
                    d_text = "\n".join(make_edit(paras, rng, pub) +
                                       ["Update: " + pool.synth_paragraphs(rng, 1)[0]])
                if d_text == text:
                    d_text = text + "\nUpdated."
            elif kind == "boilerplate":
                d_url = alt_url(url, rng, uid)
                head, foot = boilerplate_block(site_name(host), rng)
                d_text = "\n".join([head, text, foot])
            elif kind == "scattered_edit":
                d_url = alt_url(url, rng, uid)
                d_text = make_scattered_edit(text, rng)
            elif kind == "typography":
                d_url = alt_url(url, rng, uid)
                d_text = make_typography(text, rng)
            elif kind == "edit":
                d_url = alt_url(url, rng, uid)
                d_pub = pub + timedelta(hours=rng.randint(1, 48))
                d_text = "\n".join(make_edit(paras, rng, pub))
            elif kind == "truncation":
                d_url = alt_url(url, rng, uid)
                d_text = make_truncation(text, rng)
            elif kind == "syndication":
                s_host = random_host(rng)
                s_name = site_name(s_host)
                d_url = other_site_url(title, rng, uid, s_host)
                head, foot = boilerplate_block(s_name, rng)
                credit = f"This article first appeared on {site_name(host)}."
                d_text = "\n".join([head, text, credit, foot])
                d_title = f"{title} | {s_name}"
                d_cat = "external" if rng.random() < 0.5 else None
            elif kind == "reorder":
                d_url = alt_url(url, rng, uid)
                d_text = "\n".join(make_reorder(paras, rng, pool))
            elif kind == "exact":
                d_url = other_site_url(title, rng, uid, f"mirror{rng.randint(1, 99)}."
                                       + random_host(rng).removeprefix("www."))
                d_cat = "external" if rng.random() < 0.3 else None
            elif kind == "half_replaced":
                d_url = urlunsplit(("https", host, f"/{rng.choice(SECTIONS)}/"
                                    f"{slugify(title)}-{uid}", "", ""))
                d_text = "\n".join(replace_half(paras, rng, pool))
                d_pub = pub + timedelta(days=rng.randint(1, 400))
                w.add(did, d_url, d_title, d_text, d_pub, d_crawled, d_cat, did,
                      "half_replaced", None, groups)
                continue
            w.add(did, d_url, d_title, d_text, d_pub, d_crawled, d_cat, pid, kind, pid, None)

    # ---- same_template pairs: real aed sites first, then synthetic site templates
    n_pairs = neg_counts.get("same_template", 0) // 2
    by_site: dict[str, list[dict]] = {}
    for row in pool.aed:
        by_site.setdefault(row["site"], []).append(row)
    real_pairs = [v[:2] for _, v in sorted(by_site.items()) if len(v) >= 2]
    rng.shuffle(real_pairs)
    for p in range(n_pairs):
        neg_group += 1
        if p < len(real_pairs):
            for row in real_pairs[p]:
                pid = next(next_id)
                body = "\n".join(paragraphs(row["body"]))
                content = "\n".join(x for x in (row["header"], row["title"], body,
                                                 row["footer"]) if x)
                try:
                    pub = datetime.fromisoformat(row["date"][:10]).replace(tzinfo=timezone.utc)
                except ValueError:
                    pub = random_date(rng)
                crawled = crawl_base + timedelta(seconds=rng.randrange(30 * 86400))
                w.add(pid, row["url"], row["title"], content, pub, crawled, None, pid,
                      "same_template", None, neg_group)
            continue
        host = random_host(rng)
        name = site_name(host)
        nav = [" | ".join(rng.sample(NAV_WORDS, rng.randint(8, 14))) for _ in range(2)]
        teasers = [" ".join(t.split()[:12]) for t in pool.synth_paragraphs(rng, 6)]
        head = "\n".join([name] + nav + [rng.choice(COOKIE_TEMPLATES).format(site=name)])
        foot = "\n".join(["Most read"] + teasers + [
            rng.choice(FOOTER_TEMPLATES).format(site=name, year=2024)])
        bucket = pool.pick_bucket(rng)
        for _ in range(2):
            pid = next(next_id)
            body = pool.synth_paragraphs(rng, rng.randint(3, 7), bucket)
            title = " ".join(body[0].split()[:10])[:120]
            pub = random_date(rng)
            crawled = crawl_base + timedelta(seconds=rng.randrange(30 * 86400))
            url = other_site_url(title, rng, next(uid_counter), host)
            w.add(pid, url, title, "\n".join([head, title] + body + [foot]), pub, crawled,
                  None, pid, "same_template", None, neg_group)

    # ---- short_boilerplate groups: one banner template, different sites and link words
    left = neg_counts.get("short_boilerplate", 0)
    short_seen: set[str] = set()
    while left > 0:
        size = min(left, rng.randint(2, 4))
        if left - size == 1:
            size += 1
        left -= size
        neg_group += 1
        tmpl = rng.choice(SHORT_TEMPLATES)
        year = rng.randint(2018, 2025)
        for _ in range(size):
            while True:
                host = random_host(rng)
                name = site_name(host) + rng.choice(("", " Online", " Magazin", " Shop",
                                                     " Group", " Media"))
                nav = " | ".join(rng.sample(NAV_WORDS, rng.randint(3, 6)))
                content = tmpl.format(site=name, nav=nav, year=year)
                norm = " ".join(tokens(content))
                if norm not in short_seen and len(content.split()) < 50:
                    short_seen.add(norm)
                    break
            pid = next(next_id)
            pub = random_date(rng)
            crawled = crawl_base + timedelta(seconds=rng.randrange(30 * 86400))
            url = f"https://{host}/{rng.choice(('', 'index.html', 'home', 'de/', 'en/'))}"
            w.add(pid, url, name, content, pub, crawled, None, pid, "short_boilerplate",
                  None, neg_group)

    # ---- Chinese/Japanese: originals with a copy each; pairs of articles in one template
    for text in cjk_originals:
        pid, did = next(next_id), next(next_id)
        title = text[:30]
        url = other_site_url(f"cjk {pid}", rng, next(uid_counter))
        pub = random_date(rng)
        crawled = crawl_base + timedelta(seconds=rng.randrange(30 * 86400))
        w.add(pid, url, title, text, pub, crawled, None, pid, "original", None, None)
        d_url = other_site_url(f"cjk {did}", rng, next(uid_counter))
        w.add(did, d_url, title, make_cjk_copy(text, rng), pub, crawled + timedelta(hours=5),
              None, pid, "cjk_copy", pid, None)
    for k in range(n_cjk_neg):
        neg_group += 1
        host = random_host(rng)
        head = " | ".join(rng.sample(CJK_NAV, 8)) + "\n" + rng.choice(CJK_NAV) + "频道"
        foot = f"版权所有 © {rng.randint(2015, 2025)} {host} 联系我们 | 隐私政策 | 网站地图"
        for text in cjk_negatives[2 * k : 2 * k + 2]:
            pid = next(next_id)
            url = other_site_url(f"cjk {pid}", rng, next(uid_counter), host)
            w.add(pid, url, text[:30], "\n".join([head, text, foot]), random_date(rng),
                  crawl_base + timedelta(seconds=rng.randrange(30 * 86400)), None, pid,
                  "cjk_same_template", None, neg_group)

    w.close()
    leftover = sum(1 for _ in next_id)
    if leftover:  # pragma: no cover - a planning bug
        raise RuntimeError(f"{leftover} page ids unused")
    summary = {
        "path": str(path), "pages": pages, "seed": seed, "mix": list(mix), "lengths": lengths,
        "sentences": sentences,
        "real_originals": n_real, "synthesized_originals": n_synth,
        "kinds": dict(sorted(w.kinds.items())), "negative_groups": neg_group,
        "pool": {"texts": len(pool.docs), "aed_pages": len(pool.aed), "dropped": pool.dropped,
                 "sentences": {b: len(s) for b, s in pool.sentences.items()}},
    }
    if measure:
        summary["synth_overlap"] = measure_synth_overlap(synth_texts, Random(seed))
    summary["reorder_seconds"] = round(w.reorder_seconds, 2)
    summary["seconds"] = round(time.perf_counter() - t0, 2)
    return summary


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Build a labelled duplicate-detection corpus.")
    ap.add_argument("out", help="the SQLite file to write (replaced if it exists)")
    ap.add_argument("--pages", type=int, default=5000, help="number of pages (1,000-1,000,000)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--mix", default=",".join(str(x) for x in DEFAULT_MIX),
                    help="shares of originals,derived duplicates,hard negatives (0.6,0.3,0.1)")
    ap.add_argument("--data", default=str(DEFAULT_DATA), help="the shared data folder")
    ap.add_argument("--no-measure", action="store_true",
                    help="skip measuring shingle overlap between synthesized originals")
    ap.add_argument("--json", action="store_true", help="print the summary as JSON")
    ap.add_argument("--lengths", choices=("short", "real"), default="short",
                    help="text lengths of synthesized originals: 'short' (4-10 paragraphs, "
                         "about 2 KB) or 'real' (drawn from the real texts: mean about 8 KB)")
    ap.add_argument("--sentences", choices=("pool", "fresh"), default="pool",
                    help="synthesized texts from the pool's sentences as they are ('pool') or "
                         "with about 30%% of each one's words replaced ('fresh': unrelated "
                         "pages share far fewer shingles than with 'pool')")
    args = ap.parse_args(argv)
    mix = tuple(float(x) for x in args.mix.split(","))
    if len(mix) != 3 or min(mix) < 0 or sum(mix) <= 0:
        ap.error("--mix needs three non-negative shares")
    s = build_corpus(args.out, args.pages, args.seed, mix=mix, data_dir=Path(args.data),
                     measure=not args.no_measure, lengths=args.lengths,
                     sentences=args.sentences)
    if args.json:
        print(json.dumps(s, indent=2))
        return 0
    print(f"wrote {s['pages']} pages to {s['path']} (seed {s['seed']}, mix {s['mix']})")
    print(f"originals: {s['real_originals']} real, {s['synthesized_originals']} synthesized "
          f"(pool {s['pool']['texts']} texts, dropped {s['pool']['dropped']})")
    print(f"{'kind':<20}{'pages':>10}")
    for kind, n in s["kinds"].items():
        print(f"{kind:<20}{n:>10}")
    print(f"negative groups: {s['negative_groups']}")
    ov = s.get("synth_overlap")
    if ov and ov.get("pairs"):
        mean_shared = ov["mean_shingle_fraction_shared_with_any_other"]
        print(f"synthesized originals, 5-token shingles over {ov['docs']} sampled: "
              f"{ov['share_of_pairs_sharing']:.5f} of pairs share any shingle, "
              f"max pair Jaccard {ov['max_pair_jaccard']:.4f}, mean share of a doc's "
              f"shingles found in any other {mean_shared:.4f}")
    print(f"wall time: {s['seconds']:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
