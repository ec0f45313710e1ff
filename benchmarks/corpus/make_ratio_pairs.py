#!/usr/bin/env python3
"""Labelled pairs of real texts at known Levenshtein ratios, for the decision curve.

    python -m benchmarks.corpus.make_ratio_pairs OUT.sqlite --pages N --seed S
    python -m benchmarks.corpus.threshold_curve OUT.sqlite       # the decision curve of each method

Each pair is a real text of ``../shared/data/texts.jsonl.gz`` (the pool of
``make_corpus_b.py``: near copies of each other removed; no Chinese/Japanese; 1,000-15,000
characters, so that the whole text is compared) and one copy of it made by edits that neither
cut the text nor frame it: the copy is not contained in the original, nor the original in it.
Edits are applied a few at a time until the copy's Levenshtein (Indel) ratio to its original
falls under a target drawn uniformly from [0.79, 0.99]; the ratio of the two **normalized**
texts (what webdedup compares) is then measured and stored. Kinds of copy:

  scattered   word edits through the text: a letter typo, a word replaced by another word of
              the text, a word dropped or doubled, a number changed
  reworded    whole sentences reworded: words swapped for synonyms or for other words of the
              text, two neighbouring clauses or words swapped
  inserted    sentences of another text inserted between sentences in the middle (between 15
              and 85 % of the text)
  dropped     sentences of the middle (15-85 %) left out
  mixed       all four, at random

Output: ``pages`` and ``corpus_truth`` as the other generators write them (the copy is in its
original's cluster: ``evaluate.py`` scores it too), plus ``pair_ratio`` (``page_id``
of the copy, ``original_id``, ``kind``, ``ratio``). Both pages of a pair are on one host, one
path apart, so that the ``levenshtein`` method's URL window sees them.
"""

from __future__ import annotations

import re
import sqlite3
import sys
from collections import Counter
from pathlib import Path
from random import Random

from rapidfuzz.distance import Indel

from benchmarks.corpus.corpus_file import main as corpus_main
from benchmarks.corpus.corpus_file import write_corpus
from benchmarks.corpus.make_corpus_b import DEFAULT_DATA, load_pool
from benchmarks.corpus.make_corpus_reworded import SYNONYMS

KINDS = ("scattered", "reworded", "inserted", "dropped", "mixed")
#: The targets are drawn from this range; the measured ratios spread over about 0.78-0.99.
TARGETS = (0.79, 0.99)
#: Characters of an original (the whole text is compared: under LEVENSHTEIN_MAX_CHARS).
LENGTHS = (1_000, 15_000)
#: About how many characters of difference an edit of each kind makes.
PER_EDIT = {"scattered": 8, "reworded": 60, "inserted": 120, "dropped": 120, "mixed": 80}
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=\S)")
WORD = re.compile(r"[^\W\d_]{2,}|\d+")
PAIR_TABLE = (
    "CREATE TABLE pair_ratio (page_id INTEGER PRIMARY KEY, original_id INTEGER NOT NULL,"
    " kind TEXT NOT NULL, ratio REAL NOT NULL)"
)


def normalized(text: str) -> str:
    from webdedup.algorithms.text import normalize_text

    return normalize_text(text)


def ratio(a: str, b: str) -> float:
    """The Levenshtein (Indel) ratio of two texts' normalized forms, as webdedup compares them."""
    return float(Indel.normalized_similarity(normalized(a), normalized(b)))


# -------------------------------------------------------------------------------- edit models
def _middle(n: int, rng: Random) -> int:
    """A position among ``n`` in the middle of the text (15-85 %), never the first or last."""
    lo, hi = max(1, int(0.15 * n)), min(n - 1, max(1, int(0.85 * n)))
    return rng.randint(lo, max(lo, hi - 1)) if n > 2 else 1


def word_edit(text: str, rng: Random) -> str:
    words = list(WORD.finditer(text))
    if len(words) < 10:
        return text
    m = rng.choice(words)
    w = m.group()
    op = rng.randrange(5)
    if w.isdigit():
        new = str(int(w) + rng.randint(1, 9))
    elif op == 0 and len(w) >= 3:  # a letter typo
        i = rng.randrange(1, len(w))
        new = w[:i] + rng.choice("aeiounrstl".replace(w[i].lower(), "")) + w[i + 1 :]
    elif op == 1:  # another word of the text
        new = rng.choice(words).group()
    elif op == 2:  # dropped
        return text[: m.start()] + text[m.end() :].lstrip(" ")
    elif op == 3:  # doubled
        new = f"{w} {w}"
    else:  # two letters swapped
        i = rng.randrange(len(w) - 1)
        new = w[:i] + w[i + 1] + w[i] + w[i + 2 :]
    return text[: m.start()] + new + text[m.end() :]


def reword_sentence(text: str, rng: Random) -> str:
    sents = SENTENCE.split(text)
    if len(sents) < 3:
        return word_edit(text, rng)
    i = rng.randrange(len(sents))
    words = sents[i].split(" ")
    if len(words) < 4:
        return word_edit(text, rng)
    pool = WORD.findall(text)
    for k, w in enumerate(words):
        core = w.strip(".,;:!?\"'()").lower()
        if core in SYNONYMS:
            words[k] = w.lower().replace(core, SYNONYMS[core])
        elif rng.random() < 0.15:
            words[k] = rng.choice(pool)
    if rng.random() < 0.5:  # two neighbouring words swapped
        k = rng.randrange(len(words) - 1)
        words[k], words[k + 1] = words[k + 1], words[k]
    else:  # the two halves of the sentence swapped at a comma, if it has one
        commas = [k for k, w in enumerate(words[:-1]) if w.endswith(",")]
        if commas:
            k = rng.choice(commas) + 1
            words = words[k:] + words[:k]
    sents[i] = " ".join(words)
    return " ".join(sents)


def insert_sentence(text: str, other: list[str], rng: Random) -> str:
    sents = SENTENCE.split(text)
    if len(sents) < 4 or not other:
        return word_edit(text, rng)
    sents.insert(_middle(len(sents), rng), rng.choice(other))
    return " ".join(sents)


def drop_sentence(text: str, rng: Random) -> str:
    sents = SENTENCE.split(text)
    if len(sents) < 6:
        return word_edit(text, rng)
    del sents[_middle(len(sents), rng)]
    return " ".join(sents)


def edit(text: str, kind: str, other: list[str], rng: Random) -> str:
    if kind == "mixed":
        kind = rng.choice(KINDS[:-1])
    if kind == "scattered":
        return word_edit(text, rng)
    if kind == "reworded":
        return reword_sentence(text, rng)
    if kind == "inserted":
        return insert_sentence(text, other, rng)
    return drop_sentence(text, rng)


def make_copy(
    text: str, kind: str, target: float, other: list[str], rng: Random
) -> tuple[str, float]:
    """Edit ``text`` until its ratio to the original falls under ``target``: the copy and its
    measured ratio. Each round applies about as many edits as the remaining gap asks for."""
    copy, r = text, 1.0
    n = len(normalized(text))
    while r >= target:
        per_edit = PER_EDIT[kind]
        steps = max(1, int((r - target) * n / per_edit / 2))
        for _ in range(steps):
            copy = edit(copy, kind, other, rng)
        r = ratio(text, copy)
    return copy, r


# -------------------------------------------------------------------------------- the corpus
def build_corpus(path: str, pages: int, seed: int, data: Path = DEFAULT_DATA) -> dict:
    rng = Random(f"webdedup-ratio-pairs:{seed}")
    docs, _ = load_pool(data)
    docs = [d for d in docs if LENGTHS[0] <= len(d) <= LENGTHS[1]]
    rng.shuffle(docs)
    n_pairs = min(pages // 2, len(docs) - 1)
    donors = docs[n_pairs:]  # sentences to insert come from texts not in any pair
    rows: list[tuple] = []
    truth: list[tuple] = []
    pairs: list[tuple] = []
    counts: Counter[str] = Counter()
    for k in range(n_pairs):
        text = docs[k]
        kind = KINDS[k % len(KINDS)]
        other = [s for s in SENTENCE.split(rng.choice(donors)) if 40 <= len(s) <= 300]
        copy, r = make_copy(text, kind, rng.uniform(*TARGETS), other, rng)
        host = f"pair{k}.example"
        pid = len(rows) + 1
        for i, (t, page_kind) in enumerate(((text, "original"), (copy, kind))):
            title = " ".join(t.split()[:8])[:80]
            rows.append((pid + i, f"https://{host}/story/{k}{'-copy' if i else ''}", title, t,
                         None, None, None))
            truth.append((pid + i, pid, page_kind, pid if i else None, None))
            counts[page_kind] += 1
        pairs.append((pid + 1, pid, kind, round(r, 6)))
    write_corpus(path, ("url", "title", "content", "datetime", "crawled", "category"), rows,
                 truth)
    con = sqlite3.connect(path)
    con.execute("DROP TABLE IF EXISTS pair_ratio")
    con.execute(PAIR_TABLE)
    con.executemany("INSERT INTO pair_ratio VALUES (?, ?, ?, ?)", pairs)
    con.commit()
    con.close()
    return dict(counts)


def main(argv: list[str] | None = None) -> int:
    return corpus_main(build_corpus, __doc__.splitlines()[0], DEFAULT_DATA, argv,
                       what=" (pairs at known Levenshtein ratios)")


if __name__ == "__main__":
    sys.exit(main())
