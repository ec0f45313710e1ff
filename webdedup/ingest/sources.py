"""Inputs other than WARC/ARC: JSON Lines files and folders of saved HTML pages.

JSONL: one JSON object a line with a URL and the page's ``html`` or its ``text`` (field names
mappable with ``fields``, e.g. ``{"url": "link", "html": "raw"}``); ``title``, ``datetime``
and ``crawled`` are taken when present. A line with text keeps that text (no extraction).

HTML folder: every ``.html``, ``.htm`` and ``.html.gz`` file under the folder. Its URL comes
from a sidecar (``NAME.url`` holding the URL, ``NAME.json`` holding ``{"url": ...}``, or a
folder manifest: a ``.json`` file mapping file names without extension to ``{"url": ...}``
objects), else from the page's ``<link rel="canonical">``, else the file's path relative to
the folder. The sidecar wins over the canonical link: it records where the file was fetched
from, while a canonical link is only what the page claims (templates often point every page at
the home page).

Example::

    >>> import json, tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "a.jsonl").write_text(json.dumps({"url": "http://x.org/", "text": "Hi"}) + "\\n")
    >>> [e.url for e in read_jsonl(str(d / "a.jsonl"), "ab")]
    ['http://x.org/']
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from .model import MAX_RECORD_SIZE, Event, Problem, RawPage, Skipped, too_large

JSONL_FIELDS = {
    "url": "url",
    "html": "html",
    "text": "text",
    "title": "title",
    "datetime": "datetime",
    "crawled": "crawled",
}
HTML_SUFFIXES = (".html", ".htm", ".html.gz", ".htm.gz")


def open_maybe_gzip(path: str | Path) -> Any:
    """A binary file object, transparently gunzipped when the file starts with gzip magic."""
    fh = open(path, "rb")  # noqa: SIM115 - returned to the caller
    if fh.read(2) == b"\x1f\x8b":
        fh.seek(0)
        return gzip.GzipFile(fileobj=fh)
    fh.seek(0)
    return fh


#: Bad lines at the start of a JSONL file reported one by one (more are counted, and a file
#: of bad lines only is reported once as no JSONL file).
NOT_JSONL_AFTER = 3


def read_jsonl(
    path: str,
    sha256: str,
    *,
    fields: Mapping[str, str] | None = None,
    max_record: int = MAX_RECORD_SIZE,
) -> Iterator[Event]:
    """The events of a JSON Lines file (gzipped or not); offsets are of the uncompressed text.

    A line longer than ``max_record`` bytes (decompressed) is a problem, skipped without
    being held in memory; so is a line that is not JSON or nests too deep to parse.
    """
    names = dict(JSONL_FIELDS)
    unknown = sorted(set(fields or {}) - set(names))
    if unknown:
        from ..errors import ConfigError

        raise ConfigError(
            f"unknown JSONL field name(s) {', '.join(unknown)}; known: {', '.join(names)}"
        )
    names.update(fields or {})
    text_names = [names["text"]] + (["content"] if "text" not in (fields or {}) else [])
    offset = 0
    # the bad lines before the first good one: a file whose lines are all bad is not JSON
    # Lines at all, and is said so once instead of once a line (its first few are kept)
    opening: list[Problem] = []
    bad_before = 0
    started = False
    with open_maybe_gzip(path) as fh:
        for lineno, line in enumerate(_lines(fh, path, max_record), start=1):
            here = offset
            if isinstance(line, Problem):
                yield from _opening_problems(path, opening, bad_before, started=False)
                yield line
                return
            if isinstance(line, int):  # the length of a line past the limit, not kept
                offset += line
                yield Problem(path, here, too_large(f"line {lineno}", max_record))
                continue
            offset += len(line)
            if not line.strip():
                continue
            bad: str | None = None
            try:
                obj = json.loads(line)
            except ValueError as exc:
                bad = f"line {lineno} is not valid JSON ({exc})"
            except RecursionError:
                bad = f"line {lineno} nests too deep to parse as JSON"
            else:
                if not isinstance(obj, dict):
                    bad = f"line {lineno} is not a JSON object"
            if bad is not None:
                if started:
                    yield Problem(path, here, bad)
                    continue
                bad_before += 1
                if len(opening) < NOT_JSONL_AFTER:
                    opening.append(Problem(path, here, bad))
                continue
            if not started:
                started = True
                yield from _opening_problems(path, opening, bad_before, started=True)
                opening.clear()
            url = obj.get(names["url"])
            if not isinstance(url, str) or not url.strip():
                yield Skipped("no_url")
                continue
            text = next((obj[n] for n in text_names if isinstance(obj.get(n), str)), None)
            html = obj.get(names["html"])
            if text is None and not isinstance(html, str):
                yield Problem(
                    path,
                    here,
                    f"line {lineno} has neither a {names['html']!r} nor a {names['text']!r} "
                    "string field (map the names with --field)",
                )
                continue
            page = RawPage(
                url=url.strip(),
                record_key=f"{sha256}:{here}",
                source_file=path,
                offset=here,
                html=html if isinstance(html, str) else None,  # text already: not re-decoded
                text=text,
                title=_str(obj.get(names["title"])),
                datetime=_str(obj.get(names["datetime"])),
                crawled=_str(obj.get(names["crawled"])),
                want_page_date=not obj.get(names["datetime"]),
                extraction="given" if text is not None else None,
            )
            yield page
    if not started:  # no line of the file was a JSON object
        yield from _opening_problems(path, opening, bad_before, started=False)


def _opening_problems(
    path: str, opening: list[Problem], bad: int, *, started: bool
) -> Iterator[Problem]:
    """The bad lines met before the first good one: each (a few), or one line for many."""
    if bad <= len(opening) and (started or bad < NOT_JSONL_AFTER):
        yield from opening
    elif started:
        yield from opening
        yield Problem(path, None, f"and {bad - len(opening):,} more bad lines before the "
                      "first JSON object")
    else:
        yield Problem(path, 0, f"not a JSON Lines file: none of its {bad:,} lines is a JSON "
                      f"object ({opening[0].message})")


def _lines(fh: Any, path: str, limit: int) -> Iterator[bytes | int | Problem]:
    """The lines of ``fh``; for a line past ``limit`` bytes, its length (read in pieces)."""
    try:
        while line := fh.readline(limit + 1):
            if len(line) <= limit or line.endswith(b"\n"):
                yield line
                continue
            length = len(line)
            while (rest := fh.readline(1 << 20)) and not rest.endswith(b"\n"):
                length += len(rest)
            yield length + len(rest)
    except (OSError, EOFError) as exc:
        yield Problem(path, None, f"the file ends early or is damaged ({exc})")


def _str(value: Any) -> str | None:
    if value is None or value == "":
        return None
    return value if isinstance(value, str) else str(value)


def is_html_name(name: str) -> bool:
    return name.lower().endswith(HTML_SUFFIXES)


def _stem(name: str) -> str:
    low = name.lower()
    for suffix in sorted(HTML_SUFFIXES, key=len, reverse=True):
        if low.endswith(suffix):
            return name[: -len(suffix)]
    return name


def html_files(folder: Path) -> list[Path]:
    """The HTML files under ``folder``, sorted by path (deterministic order)."""
    return sorted(p for p in folder.rglob("*") if p.is_file() and is_html_name(p.name))


def _manifests(folder: Path) -> dict[str, dict[str, Any]]:
    """Folder manifests: ``*.json`` files mapping file stems to objects with a ``url``."""
    out: dict[str, dict[str, Any]] = {}
    for path in sorted(folder.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            for key, value in data.items():
                if isinstance(value, dict) and isinstance(value.get("url"), str):
                    out.setdefault(key, value)
    return out


def _sidecar(path: Path, manifests: Mapping[str, dict[str, Any]]) -> dict[str, Any]:
    stem = _stem(path.name)
    url_file = path.with_name(stem + ".url")
    if url_file.is_file():
        return {"url": url_file.read_text(encoding="utf-8").strip()}
    json_file = path.with_name(stem + ".json")
    if json_file.is_file():
        try:
            data = json.loads(json_file.read_text(encoding="utf-8"))
        except ValueError:
            data = None
        if isinstance(data, dict) and isinstance(data.get("url"), str):
            return data
    return dict(manifests.get(stem, {}))


def canonical_link(html: bytes) -> str | None:
    """The absolute http(s) URL of the page's ``<link rel="canonical">``, if any."""
    try:
        import lxml.html

        tree = lxml.html.fromstring(html)
    except Exception:  # noqa: BLE001 - unparseable HTML has no canonical link
        return None
    for link in tree.iter("link"):
        rel = (link.get("rel") or "").lower().split()
        href = (link.get("href") or "").strip()
        if "canonical" in rel and href.lower().startswith(("http://", "https://")):
            return href
    return None


def read_html_folder(
    folder: str,
    hashes: Mapping[str, str],
    *,
    names: Mapping[str, str] | None = None,
    max_record: int = MAX_RECORD_SIZE,
) -> Iterator[Event]:
    """The events of saved pages under ``folder``; ``hashes`` maps each file to its sha256.

    A file of more than ``max_record`` bytes (decompressed) is a problem, not read whole.
    """
    root = Path(folder)
    manifests = _manifests(root)
    for path in sorted(Path(p) for p in hashes):
        label = (names or {}).get(str(path), str(path))
        try:
            with open_maybe_gzip(path) as fh:
                html = fh.read(max_record + 1)
        except (OSError, EOFError) as exc:
            yield Problem(label, 0, f"unreadable HTML file ({exc})")
            continue
        if len(html) > max_record:
            yield Problem(label, 0, too_large("the HTML file", max_record))
            continue
        side = _sidecar(path, manifests)
        where = path.relative_to(root).as_posix()
        url = side.get("url") or canonical_link(html) or where
        yield RawPage(
            url=url,
            # a copy of a file under another path is another page; the same file at the
            # same path again is not
            record_key=f"{hashes[str(path)]}:{where}",
            legacy_key=f"{hashes[str(path)]}:0",
            source_file=label,
            offset=0,
            html=html,
            title=_str(side.get("title")),
            datetime=_str(side.get("datetime") or side.get("date")),
            crawled=_str(side.get("crawled")),
            want_page_date=not (side.get("datetime") or side.get("date")),
        )
