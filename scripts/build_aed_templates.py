#!/usr/bin/env python3
"""Precompute the template (navigation/header/footer) text of the html/aed news pages.

The aed set holds about 212 news sites with two different articles each. For the
``same_template`` hard negatives of ``benchmarks/corpus/make_corpus.py`` we need, per page, the
article body plus the real template text around it. Running trafilatura over 421 pages takes
a while, so this script does it once and writes a small fixture that make_corpus reads:

    python scripts/build_aed_templates.py [--data /work/shared/data] \
        [--out fixtures/aed-template-texts.jsonl.gz]

For each page, lxml gives the visible text, one text node a line (scripts and styles
removed). The template lines are the lines which also occur in the text of the other article of
the same site (so they are really shared template, not article text). Lines before the article body
form the ``header``, lines after it the ``footer``. Each output line is a JSON object with
``key, url, site, title, date, body, header, footer``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

MAX_HEADER_WORDS = 150  # keeps the fixture small and the pages realistic
MAX_FOOTER_WORDS = 250
MAX_LINE_CHARS = 300


def _full_text(path: str) -> str:
    """All visible text of the page, one text node a line (in document order)."""
    import lxml.html

    with gzip.open(path, "rb") as fh:
        raw = fh.read()
    try:
        tree = lxml.html.fromstring(raw)
    except Exception:  # pragma: no cover - a broken page gives no template
        return ""
    for bad in tree.xpath("//script|//style|//noscript|//template|//svg|//head"):
        bad.drop_tree()
    lines = []
    for node in tree.iter():
        for part in (node.text if isinstance(node.tag, str) else None,
                     node.tail if node is not tree else None):
            if part and part.strip():
                lines.append(" ".join(part.split()))
    return "\n".join(lines)


def _lines(text: str) -> list[str]:
    out = []
    for line in re.split(r"[\r\n]+", text):
        line = " ".join(line.split())
        if line:
            out.append(line[:MAX_LINE_CHARS])
    return out


def _merge_short(lines: list[str], max_words: int) -> list[str]:
    """Join runs of short segments (menu items) into navigation rows; cap the word count."""
    out: list[str] = []
    row: list[str] = []
    words = 0
    for line in lines:
        if len(line.split()) <= 3:
            row.append(line)
            if len(row) >= 10:
                out.append(" | ".join(row))
                row = []
            continue
        if row:
            out.append(" | ".join(row))
            row = []
        out.append(line)
    if row:
        out.append(" | ".join(row))
    capped = []
    for line in out:
        n = len(line.split())
        if words + n > max_words:
            break
        capped.append(line)
        words += n
    return capped


def _split_template(full: list[str], shared: set[str], body: str) -> tuple[list[str], list[str]]:
    flat_body = " ".join(body.split())
    start = None
    for i, line in enumerate(full):
        if len(line.split()) >= 6 and line in flat_body:
            start = i
            break
    if start is None:
        start = len(full) // 2
    header: list[str] = []
    footer: list[str] = []
    seen: set[str] = set()
    for i, line in enumerate(full):
        if line not in shared or line in seen or line in flat_body:
            continue
        seen.add(line)
        (header if i < start else footer).append(line)
    return _merge_short(header, MAX_HEADER_WORDS), _merge_short(footer, MAX_FOOTER_WORDS)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="/work/shared/data")
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent.parent
                                         / "fixtures" / "aed-template-texts.jsonl.gz"))
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)

    aed = Path(args.data) / "html" / "aed"
    articles = json.loads((aed / "articles.json").read_text(encoding="utf-8"))
    keys = sorted(k for k in articles if (aed / f"{k}.html.gz").exists())
    with ProcessPoolExecutor(max_workers=args.workers) as ex:
        fulls = dict(zip(keys, ex.map(_full_text, [str(aed / f"{k}.html.gz") for k in keys],
                                       chunksize=8), strict=True))
    by_site: dict[str, list[str]] = {}
    for k in keys:
        by_site.setdefault(articles[k]["site"], []).append(k)

    out_rows = []
    for site in sorted(by_site):
        ks = by_site[site]
        lines = {k: _lines(fulls[k]) for k in ks}
        for k in ks:
            others = [set(lines[o]) for o in ks if o != k]
            shared = set().union(*others) & set(lines[k]) if others else set()
            a = articles[k]
            header, footer = _split_template(lines[k], shared, a.get("articleBody") or "")
            out_rows.append({
                "key": k, "url": a["url"], "site": site, "title": a.get("title") or "",
                "date": a.get("date") or "", "body": a.get("articleBody") or "",
                "header": "\n".join(header), "footer": "\n".join(footer),
            })
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with gzip.GzipFile(args.out, "wb", mtime=0) as fh:
        for row in out_rows:
            fh.write((json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n").encode())
    n_tmpl = sum(1 for r in out_rows if r["header"] or r["footer"])
    print(f"wrote {len(out_rows)} pages ({n_tmpl} with template text) to {args.out}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
