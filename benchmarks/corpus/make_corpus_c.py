#!/usr/bin/env python3
"""A third labelled corpus generator, written apart from the other two (other edit operations,
other proportions, other hard negatives).

    python -m benchmarks.corpus.make_corpus_c OUT.sqlite --pages N --seed S

Same output as ``make_corpus.py`` and ``make_corpus_b.py`` (a ``pages`` table
and a ``corpus_truth`` table: ``cluster``, ``kind``, ``original_id``, ``negative_group``), so
``evaluate.py`` scores it.

Originals are real texts of ``texts.jsonl.gz``, 150-3,000 words (the html/aeb ones excluded:
their pages give the boilerplate below). The pool is cleaned by its own rule: a text whose
first or last 300 normalized characters (or any of its 12-word runs sampled every 40 words)
was already seen is dropped, so the pool's natural near-copies do not become unlabelled pairs.
Chinese/Japanese texts (half or more of their characters Han or Kana) are cut at line breaks
into pieces of 250-900 characters; lines of 40 characters or less of those pages serve as
navigation.

Derived copies (same cluster as their original):
  ocr_noise        OCR-like confusions inside 1-2 % of the words (rn/m, l/1, O/0, cl/d,
                   e/c, a letter lost at a line end), the way a scanned re-print reads
  number_refresh   every number of the text changed (dates, counts, prices), at most
                   3 % of the words, plus an "Updated" line on top
  extractor_markup the text as another extractor gives it: markdown list markers and
                   heading hashes, paragraphs re-wrapped at 60-80 columns, "[1]"-style
                   link footnotes after 1 in 12 lines
  paragraph_drop   one paragraph of 2-7 % of the characters removed (never the first)
  lead_excerpt     the first 55-80 % of the paragraphs followed by "Continue reading on
                   <site>" (a feed's excerpt)
  aeb_frame        the text between the real header and footer text of an html/aeb page
                   (its visible lines that are not its article), header at most as long
                   as the text
  cjk_indel        a Chinese/Japanese piece with 1-2 % of its characters deleted or a
                   character of the piece inserted, and ASCII/full-width punctuation swapped
  cjk_framed       a Chinese/Japanese piece between navigation lines of another real
                   Chinese/Japanese page
  cjk_excerpt      a Chinese/Japanese piece cut at a 。/！/？ after 70-90 % of its characters
Hard negatives (each page its own cluster; the pages of one negative_group look alike):
  shared_footer    two different short texts (80-200 words) under one real aeb footer as
                   long as 60-100 % of the text
  article_parts    the first and the second half of one long text, in one frame
  listing_pages    two listing pages of one site: one navigation, ten different headlines
  cjk_shared_nav   two different Chinese/Japanese pieces between one page's navigation lines
"""

from __future__ import annotations

import gzip
import json
import os
import re
import sys
import unicodedata
from pathlib import Path
from random import Random

from benchmarks.corpus.corpus_file import main as corpus_main
from benchmarks.corpus.corpus_file import write_corpus

DEFAULT_DATA = Path(os.environ.get("WEBDEDUP_DATA", "/work/shared/data"))
DERIVED = ("ocr_noise", "number_refresh", "extractor_markup", "paragraph_drop",
           "lead_excerpt", "aeb_frame")
CJK_DERIVED = ("cjk_indel", "cjk_framed", "cjk_excerpt")
NEGATIVES = ("shared_footer", "article_parts", "listing_pages", "cjk_shared_nav")
#: share of pages: originals, Latin copies, CJK originals + copies, hard-negative pages
SHARES = (0.52, 0.30, 0.08, 0.10)
#: relative weights of the Latin copy kinds (not uniform: on purpose, unlike the others)
WEIGHTS = (3, 2, 2, 2, 2, 3)

_HAN_KANA = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")
_NUMBER = re.compile(r"\d+")
_WORDISH = re.compile(r"\w{3,}")
OCR = (("m", "rn"), ("rn", "m"), ("l", "1"), ("O", "0"), ("d", "cl"), ("e", "c"), ("h", "b"),
       ("i", "l"), ("S", "5"), ("B", "8"))
SITES = ("harbor-news", "civic-daily", "northstar", "plainview", "riverside-post", "summit",
         "the-atlas", "greenline", "openwire", "metroline", "bayfront", "highland")
WIDTH = {",": "，", ".": "。", ":": "：", "(": "（", ")": "）", "!": "！", "?": "？"}


def _norm(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def _is_cjk(text: str) -> bool:
    letters = sum(1 for c in text if c.isalpha())
    return letters > 0 and len(_HAN_KANA.findall(text)) >= 0.5 * letters


def load_pool(data: Path) -> tuple[list[str], list[str], list[str]]:
    """(Latin/other originals, CJK pieces, CJK navigation lines) of texts.jsonl.gz."""
    seen: set[str] = set()
    latin: list[str] = []
    cjk_texts: list[str] = []
    with gzip.open(data / "texts.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            if row["source"] == "scrapinghub-aeb":
                continue
            text = row["text"].strip()
            norm = _norm(text)
            words = norm.split()
            keys = {"h:" + norm[:300], "t:" + norm[-300:]}
            keys |= {" ".join(words[i : i + 12]) for i in range(0, max(1, len(words) - 12), 40)}
            if keys & seen:
                continue
            seen |= keys
            if _is_cjk(text):
                cjk_texts.append(text)
            elif 150 <= len(words) <= 3000:
                latin.append(text)
    pieces: list[str] = []
    nav: list[str] = []
    for text in cjk_texts:
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        nav += [ln for ln in lines if len(ln) <= 40 and _HAN_KANA.search(ln)]
        piece: list[str] = []
        size = 0
        for ln in lines:
            if len(ln) <= 40 and not piece:
                continue  # navigation at the top is not article text
            piece.append(ln)
            size += len(ln)
            if size >= 250 and (size >= 900 or ln.endswith(("。", "！", "？"))) and size >= 450:
                pieces.append("\n".join(piece))
                piece, size = [], 0
        if size >= 250:
            pieces.append("\n".join(piece))
    return latin, pieces, sorted(set(nav))


def aeb_frames(data: Path) -> list[tuple[str, str]]:
    """(header, footer) of the real html/aeb pages: their visible lines outside the article."""
    import lxml.html

    root = data / "html" / "aeb"
    truth = json.loads((root / "ground-truth.json").read_text(encoding="utf-8"))
    frames = []
    for key in sorted(truth):
        body = _norm(truth[key].get("articleBody") or "")
        try:
            with gzip.open(root / f"{key}.html.gz", "rb") as fh:
                tree = lxml.html.fromstring(fh.read().decode("utf-8", "replace"))
        except (OSError, ValueError):
            continue
        for bad in tree.xpath("//script|//style|//noscript|//template|//head"):
            bad.drop_tree()
        lines = []
        for node in tree.iter():
            if not isinstance(node.tag, str):  # comments, processing instructions
                continue
            for piece in (node.text, node.tail):
                piece = " ".join((piece or "").split())
                if 2 <= len(piece) <= 160 and _norm(piece) not in body:
                    lines.append(piece)
        if len(lines) < 12:
            continue
        half = len(lines) // 2
        frames.append(("\n".join(lines[:half]), "\n".join(lines[half:])))
    return frames


def _cap(frame: str, chars: int) -> str:
    """The first lines of ``frame`` up to about ``chars`` characters."""
    out, size = [], 0
    for ln in frame.splitlines():
        if size + len(ln) > chars:
            break
        out.append(ln)
        size += len(ln) + 1
    return "\n".join(out)


def ocr_noise(text: str, rng: Random) -> str:
    words = text.split(" ")
    spots = [i for i, w in enumerate(words) if len(w) >= 4]
    for i in rng.sample(spots, max(1, int(len(words) * rng.uniform(0.01, 0.02)))):
        w = words[i]
        options = [(a, b) for a, b in OCR if a in w]
        if options:
            a, b = rng.choice(options)
            words[i] = w.replace(a, b, 1)
        else:
            words[i] = w[:-1]  # a letter lost at the line end
    return " ".join(words)


def number_refresh(text: str, rng: Random) -> str | None:
    numbers = list(_NUMBER.finditer(text))
    if not numbers or len(numbers) > 0.03 * len(text.split()):
        return None
    out, last = [], 0
    for m in numbers:
        value = int(m.group()) if len(m.group()) < 12 else 7
        out += [text[last : m.start()], str(value + rng.randint(1, 9))]
        last = m.end()
    out.append(text[last:])
    return f"Updated {rng.randint(1, 28)} March\n" + "".join(out)


def extractor_markup(text: str, rng: Random) -> str:
    out = []
    for n, para in enumerate(text.splitlines()):
        para = para.strip()
        if not para:
            continue
        if len(para) < 70 and not para.endswith("."):
            para = "## " + para
        elif rng.random() < 0.15:
            para = "* " + para
        width = rng.randint(60, 80)
        words, line, lines = para.split(), "", []
        for w in words:
            if line and len(line) + len(w) + 1 > width:
                lines.append(line)
                line = w
            else:
                line = f"{line} {w}" if line else w
        lines.append(line)
        out.append("\n".join(lines))
        if n % 12 == 11:
            out.append(f"[{n // 12 + 1}]")
    return "\n\n".join(out)


def paragraph_drop(text: str, rng: Random) -> str | None:
    paras = text.splitlines()
    size = len(text)
    fits = [i for i, p in enumerate(paras) if i > 0 and 0.02 * size <= len(p) <= 0.07 * size]
    if not fits:
        return None
    drop = rng.choice(fits)
    return "\n".join(p for i, p in enumerate(paras) if i != drop)


def lead_excerpt(text: str, rng: Random) -> str | None:
    paras = [p for p in text.splitlines() if p.strip()]
    if len(paras) < 4:
        return None
    keep = max(1, round(len(paras) * rng.uniform(0.55, 0.8)))
    return "\n".join(paras[:keep]) + f"\nContinue reading on {rng.choice(SITES)}.com"


def aeb_frame(text: str, frame: tuple[str, str], rng: Random) -> str:
    head, foot = frame
    return f"{_cap(head, len(text))}\n{text}\n{_cap(foot, len(text) // 2)}"


def cjk_indel(text: str, rng: Random) -> str:
    chars = list(text)
    spots = [i for i, c in enumerate(chars) if _HAN_KANA.match(c)]
    for i in sorted(rng.sample(spots, max(1, int(len(spots) * rng.uniform(0.01, 0.02)))),
                    reverse=True):
        if rng.random() < 0.5:
            del chars[i]
        else:
            chars.insert(i, text[rng.choice(spots)])
    out = "".join(chars)
    for ascii_form, wide in WIDTH.items():
        if rng.random() < 0.5:
            out = out.replace(wide, ascii_form)
    return out


def cjk_excerpt(text: str, rng: Random) -> str | None:
    cut = int(len(text) * rng.uniform(0.7, 0.9))
    ends = [m.end() for m in re.finditer("[。！？]", text) if m.end() <= cut]
    return text[: ends[-1]] if ends and ends[-1] >= 0.6 * len(text) else None


def build_corpus(path: str, pages: int, seed: int, data: Path = DEFAULT_DATA) -> dict:
    """Write the corpus to ``path``; returns the number of pages of each kind."""
    rng = Random(seed)
    latin, pieces, nav = load_pool(data)
    frames = aeb_frames(data)
    rng.shuffle(latin)
    rng.shuffle(pieces)
    rows: list[tuple] = []
    truth: list[tuple] = []
    counts: dict[str, int] = {}
    cluster = 0

    def add(text: str, kind: str, original: int | None = None, negative: int | None = None,
            same_cluster_as: int | None = None) -> int:
        nonlocal cluster
        pid = len(rows) + 1
        site = rng.choice(SITES)
        rows.append((pid, f"https://{site}.example.net/c/{seed}/{pid}", f"page {pid}", text,
                     f"2026-0{1 + pid % 9}-1{pid % 10}T0{pid % 10}:00:00Z"))
        if same_cluster_as is None:
            cluster += 1
            label = cluster
        else:
            label = next(t[1] for t in truth if t[0] == same_cluster_as)
        truth.append((pid, label, kind, original, negative))
        counts[kind] = counts.get(kind, 0) + 1
        return pid

    n_orig, n_copy, n_cjk, n_neg = (int(pages * s) for s in SHARES)
    # each real text is used once: the originals, then the hard negatives from the rest
    n_orig = min(n_orig, len(latin) - 200)
    spare = latin[n_orig:]
    originals: list[tuple[int, str]] = []
    for text in latin[:n_orig]:
        originals.append((add(text, "original"), text))
    made = 0
    while made < n_copy:
        pid, text = rng.choice(originals)
        kind = rng.choices(DERIVED, WEIGHTS)[0]
        if kind == "ocr_noise":
            copy = ocr_noise(text, rng)
        elif kind == "number_refresh":
            copy = number_refresh(text, rng)
        elif kind == "extractor_markup":
            copy = extractor_markup(text, rng)
        elif kind == "paragraph_drop":
            copy = paragraph_drop(text, rng)
        elif kind == "lead_excerpt":
            copy = lead_excerpt(text, rng)
        else:
            copy = aeb_frame(text, rng.choice(frames), rng)
        if copy is None or copy == text:
            continue
        add(copy, kind, pid, same_cluster_as=pid)
        made += 1
    # Chinese/Japanese: each piece once (six kept for the hard negatives), one or two copies
    cjk_spare, pieces = pieces[:6], pieces[6:]
    made = 0
    for n, piece in enumerate(pieces):
        if made >= n_cjk:
            break
        pid = add(piece, "cjk_original")
        made += 1
        for kind in rng.sample(CJK_DERIVED, 1 + n % 2):
            if kind == "cjk_indel":
                copy = cjk_indel(piece, rng)
            elif kind == "cjk_framed":
                lines = rng.sample(nav, min(len(nav), 8))
                copy = "\n".join(lines[:5] + [piece] + lines[5:])
            else:
                copy = cjk_excerpt(piece, rng)
            if copy and copy != piece:
                add(copy, kind, pid, same_cluster_as=pid)
                made += 1
    # hard negatives: every real text or piece in one of them only (else two groups would
    # hold copies of one text, unlabelled)
    negative = 0
    made = 0
    short = iter([t for t in spare if len(t.split()) <= 400])
    long_ = iter([t for t in spare if len(t.split()) >= 600])
    titles = iter([t.split("\n")[0][:120] for t in spare])
    cjk_left = iter(cjk_spare)
    kinds = list(NEGATIVES)
    while made < n_neg and kinds:
        kind = kinds[negative % len(kinds)]
        negative += 1
        try:
            if kind == "shared_footer":
                head, foot = rng.choice(frames)
                for text in (next(short), next(short)):
                    text = " ".join(text.split()[: rng.randint(80, 200)])
                    cap = _cap(foot, int(len(text) * rng.uniform(0.6, 1.0)))
                    add(f"{text}\n{cap}", kind, negative=negative)
            elif kind == "article_parts":
                head, foot = rng.choice(frames)
                words = next(long_).split()
                half = len(words) // 2
                for part in (words[:half], words[half:]):
                    add(f"{_cap(head, 300)}\n{' '.join(part)}\n{_cap(foot, 300)}", kind,
                        negative=negative)
            elif kind == "listing_pages":
                head, foot = rng.choice(frames)
                for _ in range(2):
                    listed = "\n".join([next(titles) for _ in range(10)])
                    add(f"{_cap(head, 600)}\n{listed}\n{_cap(foot, 600)}", kind,
                        negative=negative)
            else:
                lines = rng.sample(nav, min(len(nav), 10))
                for piece in (next(cjk_left), next(cjk_left)):
                    add("\n".join(lines[:6] + [piece[:400]] + lines[6:]), kind,
                        negative=negative)
        except StopIteration:  # this kind's real texts are used up
            kinds.remove(kind)
            continue
        made += 2
    write_corpus(path, ("url", "title", "content", "crawled"), rows, truth)
    return counts


def main(argv: list[str] | None = None) -> int:
    return corpus_main(build_corpus, __doc__.splitlines()[0], DEFAULT_DATA, argv)

if __name__ == "__main__":
    sys.exit(main())
