"""Compare two offline language identifiers on the real texts of ../shared/data.

    python scripts/compare_language_identifiers.py [--data ../shared/data] [--limit N]

The texts carry no language labels, so a label is built from what the *site* says, never
from a detector:

1. ``html-lang``: the ``<html lang="..">`` attribute of the saved page, for the texts whose
   page is in ``html/aeb`` and ``html/aed`` (matched by URL);
2. ``url``: for the other texts, a language segment in the URL path (``/de/``, ``/fr-fr/``)
   or else a country-code top-level domain whose country has one dominant language
   (``.de`` ``.at`` -> de, ``.fr`` -> fr, ``.pl`` -> pl, ``.br`` -> pt, ``.jp`` -> ja, ...;
   ``.uk`` ``.au`` ``.gov`` ``.edu`` -> en). Ambiguous ones (``.ch``, ``.be``, ``.ca``, ``.co``,
   ``.io``, ``.com``...) give no label.

URL labels are noisy (an English page on a ``.de`` host); the noise is the same for both
identifiers, so the comparison stays fair, and the script prints each label source
separately. Texts under 20 words are left out (too little to say anything). Prints accuracy,
agreement, speed per page and the installed size of each package; needs both installed
(``pip install py3langid lingua-language-detector``), webdedup itself needs only py3langid. The
third row is webdedup's own detection (py3langid over pieces of the text:
``webdedup.algorithms.language.detect``); its load time is py3langid's.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

TLD_LANG = {
    "de": "de", "at": "de", "fr": "fr", "it": "it", "pl": "pl", "ru": "ru", "br": "pt",
    "pt": "pt", "es": "es", "mx": "es", "ar": "es", "cl": "es", "pe": "es", "nl": "nl",
    "jp": "ja", "cn": "zh", "kr": "ko", "cz": "cs", "se": "sv", "dk": "da", "fi": "fi",
    "gr": "el", "hu": "hu", "tr": "tr", "ro": "ro", "ua": "uk", "no": "no", "sk": "sk",
    "uk": "en", "au": "en", "nz": "en", "ie": "en", "us": "en", "gov": "en", "edu": "en",
}
PATH_LANG = re.compile(r"^/([a-z]{2})(?:[-_][a-z]{2})?/", re.IGNORECASE)
HTML_LANG = re.compile(rb"<html\b[^>]*?\blang=[\"']?([A-Za-z]{2,3})", re.IGNORECASE)
KNOWN = set(TLD_LANG.values()) | {"en"}


def html_labels(data: Path) -> dict[str, str]:
    """URL -> the language its saved page declares in ``<html lang>``."""
    out: dict[str, str] = {}
    sets = (("aeb", "ground-truth.json"), ("aed", "articles.json"))
    for folder, index in sets:
        meta = json.loads((data / "html" / folder / index).read_text(encoding="utf-8"))
        for key, item in meta.items():
            path = data / "html" / folder / f"{key}.html.gz"
            if not path.exists():
                continue
            m = HTML_LANG.search(gzip.decompress(path.read_bytes())[:200_000])
            if m:
                out[item["url"]] = m.group(1).decode().lower()
    return out


def url_label(url: str) -> str | None:
    parts = urlsplit(url)
    m = PATH_LANG.match(parts.path or "")
    if m and m.group(1).lower() in KNOWN:
        return m.group(1).lower()
    host = (parts.hostname or "").rsplit(".", 1)[-1]
    return TLD_LANG.get(host)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[1] / "../shared/data"))
    ap.add_argument("--limit", type=int, default=0, help="at most this many labelled texts")
    args = ap.parse_args()
    data = Path(args.data)
    by_html = html_labels(data)
    sample: list[tuple[str, str, str]] = []  # (label source, label, text)
    with gzip.open(data / "texts.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            text, url = row["text"], row.get("url") or ""
            if len(text.split()) < 20:
                continue
            if url in by_html:
                sample.append(("html-lang", by_html[url], text))
            elif (label := url_label(url)) is not None:
                sample.append(("url", label, text))
    if args.limit:
        sample = sample[: args.limit]
    print(f"labelled texts: {len(sample)}  by source: {dict(Counter(s for s, _, _ in sample))}")
    print(f"labels: {dict(Counter(lab for _, lab, _ in sample).most_common())}")

    from lingua import LanguageDetectorBuilder
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    def lingua_code(lang: object) -> str:
        return lang.iso_code_639_1.name.lower() if lang is not None else "und"  # type: ignore

    t0 = time.perf_counter()
    ident = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    load_py3 = time.perf_counter() - t0
    t0 = time.perf_counter()
    detector = LanguageDetectorBuilder.from_all_languages().with_preloaded_language_models().build()
    load_lingua = time.perf_counter() - t0

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from webdedup.algorithms import language

    results: dict[str, list[str]] = {}
    timing: dict[str, float] = {}
    for name, fn in (
        ("py3langid", lambda t: ident.classify(t[:5000])[0]),
        ("lingua", lambda t: lingua_code(detector.detect_language_of(t[:5000]))),
        ("webdedup", lambda t: language.detect(t).lang or "und"),
    ):
        t0 = time.perf_counter()
        results[name] = [fn(text) for _, _, text in sample]
        timing[name] = time.perf_counter() - t0

    def size(pkg: str) -> float:
        import importlib.util

        spec = importlib.util.find_spec(pkg)
        root = Path(spec.origin).parent if spec and spec.origin else None
        return sum(f.stat().st_size for f in root.rglob("*") if f.is_file()) / 1e6 if root else 0

    print(f"\n{'identifier':<10} {'accuracy':>9} {'html-lang':>10} {'url':>8} "
          f"{'ms/page':>8} {'load s':>7} {'installed MB':>13}")
    loads = (
        ("py3langid", load_py3, "py3langid"),
        ("lingua", load_lingua, "lingua"),
        ("webdedup", load_py3, "py3langid"),
    )
    for name, load, pkg in loads:
        got = results[name]
        acc = {
            src: (
                sum(g == lab for (s, lab, _), g in zip(sample, got, strict=True) if s == src),
                sum(1 for s, _, _ in sample if s == src),
            )
            for src in ("html-lang", "url")
        }
        total = sum(a for a, _ in acc.values()) / max(1, len(sample))
        per = {k: (a / n if n else float("nan")) for k, (a, n) in acc.items()}
        print(f"{name:<10} {total:>9.3f} {per['html-lang']:>10.3f} {per['url']:>8.3f} "
              f"{1000 * timing[name] / max(1, len(sample)):>8.2f} {load:>7.2f} {size(pkg):>13.1f}")
    agree = sum(a == b for a, b in zip(results["py3langid"], results["lingua"], strict=True))
    print(f"\nthe two agree on {agree}/{len(sample)} texts")
    both_wrong = sum(
        a == b != lab
        for (_, lab, _), a, b in zip(sample, results["py3langid"], results["lingua"], strict=True)
    )
    print(f"both say the same language against the label (label noise, mostly): {both_wrong}")
    per_label: dict[str, Counter[str]] = {}
    for (_, lab, _), a, b in zip(sample, results["py3langid"], results["lingua"], strict=True):
        c = per_label.setdefault(lab, Counter())
        c["n"] += 1
        c["py3langid"] += a == lab
        c["lingua"] += b == lab
    for (_, lab, _), w in zip(sample, results["webdedup"], strict=True):
        per_label[lab]["webdedup"] += w == lab
    print("\nper label (n, py3langid right, lingua right, webdedup right):")
    for lab, c in sorted(per_label.items(), key=lambda kv: -kv[1]["n"]):
        print(f"  {lab}: {c['n']}, {c['py3langid']}, {c['lingua']}, {c['webdedup']}")


if __name__ == "__main__":
    main()
