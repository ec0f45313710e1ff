#!/usr/bin/env python3
"""A labelled corpus of reworded copies (SYNTHETIC paraphrases), for ``--method vectors``.

    python -m benchmarks.corpus.make_corpus_reworded OUT.sqlite --pages N --seed S

Same output as ``make_corpus.py`` (a ``pages`` table and a ``corpus_truth`` table:
``cluster``, ``kind``, ``original_id``, ``negative_group``), so ``evaluate.py`` scores
it. The originals are real English texts of ``../shared/data/texts.jsonl.gz`` (the pool of
``make_corpus_b.py``: near copies of each other removed), at least 150 words long. The copies
are machine-made, not written by people: real paraphrases (a journalist rewriting a story)
change more than this, so the figures measured on this corpus are a best case.

Derived copies (same cluster as their original):
  synonym_swap      20-35 % of the words that have an entry in the small synonym table below
                    replaced by a synonym (case kept)
  sentence_reorder  the sentences shuffled (the first one stays first)
  reworded          both: synonyms swapped in 15-25 % of those words, and every second pair
                    of neighbouring sentences swapped, plus one sentence dropped
Hard negatives (each page its own cluster; pages of one negative_group look alike):
  aed_template      the two different articles of one ../shared/data/html/aed site, each
                    inside the real visible boilerplate of its page (as make_corpus_b.py)
  same_topic        two different real texts that share many of their rarer words (the pair
                    with the highest word overlap found among a sample): related articles
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path
from random import Random

from benchmarks.corpus.corpus_file import main as corpus_main
from benchmarks.corpus.corpus_file import write_corpus
from benchmarks.corpus.make_corpus_b import DEFAULT_DATA, aed_pages, boilerplate, load_pool

SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(])")
WORD = re.compile(r"[A-Za-z]+")
#: A small hand-made synonym table (common English words of news and web pages).
SYNONYMS = {
    "big": "large", "large": "big", "small": "little", "little": "small", "said": "stated",
    "says": "states", "new": "recent", "recent": "new", "old": "former", "important": "key",
    "key": "main", "main": "principal", "show": "reveal", "shows": "reveals",
    "showed": "revealed", "help": "assist", "helps": "assists", "helped": "assisted",
    "start": "begin", "started": "began", "begin": "start", "end": "finish",
    "ended": "finished", "buy": "purchase", "bought": "purchased", "use": "employ",
    "used": "employed", "uses": "employs", "make": "create", "made": "created",
    "makes": "creates", "get": "obtain", "got": "obtained", "gets": "obtains",
    "give": "provide", "gave": "provided", "gives": "provides", "need": "require",
    "needs": "requires", "needed": "required", "want": "wish", "wanted": "wished",
    "think": "believe", "thought": "believed", "thinks": "believes", "often": "frequently",
    "many": "numerous", "several": "various", "also": "additionally", "however": "yet",
    "but": "yet", "because": "since", "about": "around", "almost": "nearly",
    "nearly": "almost", "quickly": "rapidly", "fast": "rapid", "quick": "rapid",
    "hard": "difficult", "difficult": "hard", "easy": "simple", "simple": "easy",
    "people": "individuals", "person": "individual", "company": "firm", "firm": "company",
    "companies": "firms", "business": "enterprise", "city": "town", "country": "nation",
    "countries": "nations", "government": "administration", "money": "funds",
    "job": "position", "jobs": "positions", "work": "labour", "worked": "laboured",
    "children": "kids", "kids": "children", "car": "vehicle", "cars": "vehicles",
    "house": "home", "home": "house", "problem": "issue", "problems": "issues",
    "issue": "matter", "issues": "matters", "idea": "notion", "ideas": "notions",
    "change": "alter", "changed": "altered", "changes": "alterations", "try": "attempt",
    "tried": "attempted", "find": "discover", "found": "discovered", "finds": "discovers",
    "tell": "inform", "told": "informed", "ask": "enquire", "asked": "enquired",
    "answer": "reply", "answered": "replied", "near": "close to", "large-scale": "extensive",
    "part": "portion", "parts": "portions", "area": "region", "areas": "regions",
    "way": "manner", "ways": "manners", "week": "seven days", "month": "four weeks",
    "year": "twelve months", "today": "this day", "now": "currently", "soon": "shortly",
    "enough": "sufficient", "whole": "entire", "entire": "whole", "very": "highly",
    "really": "truly", "maybe": "perhaps", "perhaps": "maybe", "likely": "probably",
    "probably": "likely", "around": "roughly", "among": "amid", "before": "prior to",
    "after": "following", "during": "throughout", "increase": "rise", "increased": "rose",
    "decrease": "fall", "decreased": "fell", "report": "account", "reported": "stated",
    "according": "as per", "announced": "declared", "plan": "scheme", "plans": "schemes",
    "support": "back", "supported": "backed", "allow": "permit", "allowed": "permitted",
    "include": "comprise", "includes": "comprises", "including": "comprising",
}


def english(text: str) -> bool:
    words = text.lower().split()
    en = sum(words.count(w) for w in ("the", "and", "of", "to", "is"))
    return en >= 0.06 * len(words)


def swap_synonyms(text: str, rng: Random, rate: float) -> str:
    def repl(m: re.Match) -> str:
        word = m.group(0)
        syn = SYNONYMS.get(word.lower())
        if syn is None or rng.random() >= rate:
            return word
        return syn.capitalize() if word[0].isupper() else syn

    return WORD.sub(repl, text)


def sentences(text: str) -> list[str]:
    return [s for s in SENTENCE.split(" ".join(text.split())) if s]


def reorder(text: str, rng: Random) -> str | None:
    parts = sentences(text)
    if len(parts) < 4:
        return None
    rest = parts[1:]
    rng.shuffle(rest)
    return " ".join([parts[0], *rest])


def reword(text: str, rng: Random) -> str | None:
    parts = sentences(swap_synonyms(text, rng, rng.uniform(0.15, 0.25)))
    if len(parts) < 5:
        return None
    for i in range(0, len(parts) - 1, 4):
        parts[i], parts[i + 1] = parts[i + 1], parts[i]
    del parts[rng.randrange(1, len(parts))]
    return " ".join(parts)


def _rare_words(text: str) -> set[str]:
    return {w for w in WORD.findall(text.lower()) if len(w) >= 7}


def build_corpus(path: str, pages: int, seed: int, data: Path = DEFAULT_DATA) -> dict:
    rng = Random(seed)
    docs, _ = load_pool(data)
    docs = [d for d in docs if english(d) and len(d.split()) >= 150]
    rng.shuffle(docs)
    sites = aed_pages(data)
    rows: list[tuple] = []
    truth: list[tuple] = []
    counts: Counter[str] = Counter()

    def add(text: str, kind: str, cluster: int | None = None, original: int | None = None,
            negative: int | None = None, host: str | None = None) -> int:
        pid = len(rows) + 1
        title = " ".join(text.split()[:8])[:80]
        url = f"https://{host or f'site{rng.randrange(10**6)}.example'}/p/{pid}"
        rows.append((pid, url, title, text, None, None, None))
        truth.append((pid, cluster if cluster is not None else pid, kind, original, negative))
        counts[kind] += 1
        return pid

    negative = 0
    n_neg = pages // 10
    for site in sorted(sites)[: n_neg // 4]:
        negative += 1
        host = f"{site}.example"
        for page in sites[site]:
            head, foot = boilerplate(page)
            add(f"{head}\n{page['title']}\n{page['body']}\n{foot}", "aed_template",
                negative=negative, host=host)
    # related articles: the pairs of the last texts with the most shared rare words
    spare = docs[-300:]
    docs = docs[:-300]
    rare = [_rare_words(d) for d in spare]
    pairs = sorted(
        ((len(rare[i] & rare[j]) / max(1, min(len(rare[i]), len(rare[j]))), i, j)
         for i in range(len(spare)) for j in range(i + 1, len(spare))),
        reverse=True,
    )
    used: set[int] = set()
    for _, i, j in pairs:
        if counts["same_topic"] >= n_neg // 2:
            break
        if i in used or j in used:
            continue
        used |= {i, j}
        negative += 1
        add(spare[i], "same_topic", negative=negative)
        add(spare[j], "same_topic", negative=negative)
    n_derived = int(0.3 * pages)
    originals = [(add(t, "original"), t) for t in docs[: max(0, pages - len(rows) - n_derived)]]
    kinds = ("synonym_swap", "sentence_reorder", "reworded")
    made = 0
    while made < n_derived and originals:
        pid, text = originals[made % len(originals)]
        kind = kinds[made % len(kinds)]
        if kind == "synonym_swap":
            copy: str | None = swap_synonyms(text, rng, rng.uniform(0.2, 0.35))
        elif kind == "sentence_reorder":
            copy = reorder(text, rng)
        else:
            copy = reword(text, rng)
        made += 1
        if copy is not None and copy != text:
            add(copy, kind, pid, pid)
    write_corpus(path, ("url", "title", "content", "datetime", "crawled", "category"), rows,
                 truth)
    return dict(counts)


def main(argv: list[str] | None = None) -> int:
    return corpus_main(
        build_corpus, __doc__.splitlines()[0], DEFAULT_DATA, argv,
        what=" (synthetic paraphrases of real texts)",
    )

if __name__ == "__main__":
    sys.exit(main())
