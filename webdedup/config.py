"""The one frozen configuration object of a run.

``Config`` holds every parameter; ``Columns`` maps webdedup's names for the input columns to
the names a crawler's ``pages`` table really uses. ``Config.fingerprint()`` hashes the
parameters that shape signatures and edges, so a later run can tell whether stored state is
still valid.

Example::

    >>> cfg = Config(threshold=0.85, columns=Columns(content="body"))
    >>> cfg.columns.content
    'body'
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
from collections.abc import Callable, Mapping
from dataclasses import MISSING, asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, ClassVar

from .algorithms import language
from .algorithms.election import DEFAULT_ELECTION, ELECTION_KEYS, validate_election
from .algorithms.minhash import MAX_NUM_PERM
from .algorithms.own import OWN_VERSION
from .algorithms.segments import SEGMENTS_VERSION
from .algorithms.sketch import NearSpec
from .algorithms.text import NORMALIZATION_VERSION
from .algorithms.urls import IGNORE_MATCHES, IgnoreRules
from .errors import ConfigError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

#: Version of how a page's language is detected (a change rebuilds the stored state of the
#: runs that detect languages; 2: short texts cut into 3 pieces; 3: CLD2 over a sample of
#: the text instead of py3langid over its first 5,000 characters).
LANGUAGE_VERSION = 3
#: Version of how a run that does not detect languages reads a crawler's own language
#: column (what ``LANGUAGE_VERSION`` was before detection changed: such runs stay incremental).
LANGUAGE_COLUMN_VERSION = 1
METHODS = ("minhash", "levenshtein", "simhash", "vectors")
#: Upper bounds that keep a value in the ranges the algorithms and SQLite accept.
MAX_DISTANCE = 1_000_000
MAX_BUSY_TIMEOUT = 86_400.0  # a day
SIMILARITIES = ("overlap", "jaccard")


@dataclass(frozen=True)
class Columns:
    """Names of the input columns in the crawler's table (only ``url`` and text are required).

    The text of a page comes from ``content``; when that column is missing or a row's value is
    empty, from ``content_fallback`` (when named: a second text column), then from ``html``
    through trafilatura's extraction. The crawler webdedup's ``Deduplicator`` follows keeps
    its text in ``parsed``, else ``content``: ``Columns(content="parsed",
    content_fallback="content")`` (:data:`PARSED_COLUMNS`).
    """

    table: str = "pages"
    url: str = "url"
    content: str = "content"
    html: str = "html"
    title: str = "title"
    datetime: str = "datetime"
    date: str = "date"
    crawled: str = "crawled"
    category: str = "category"
    lang: str = "lang"
    content_fallback: str | None = None

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, str]) -> Columns:
        """Build from ``{"content": "body", ...}``; unknown keys are an error."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(mapping) - known)
        if unknown:
            raise ConfigError(
                f"unknown column name(s) {', '.join(unknown)}; "
                f"the mappable columns are: {', '.join(sorted(known))}"
            )
        return cls(**dict(mapping))

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None and f.name == "content_fallback":
                continue
            if not isinstance(value, str) or not value or "\x00" in value:
                raise ConfigError(
                    f"column {f.name!r} must map to a non-empty name, got {value!r}"
                )


#: The columns of the crawler webdedup's ``Deduplicator`` follows: the page's text in
#: ``parsed`` (its normalized title and text), else in ``content``.
PARSED_COLUMNS = Columns(content="parsed", content_fallback="content")


def _columns_shape(columns: Columns) -> dict[str, Any]:
    """The column mapping as shaping parameters (no ``content_fallback`` unless named, so
    fingerprints from before it existed stay valid)."""
    shape = asdict(columns)
    if shape.get("content_fallback") is None:
        shape.pop("content_fallback", None)
    return shape


@dataclass(frozen=True)
class Setting:
    """What one configuration key is: the one definition its type check, its range check, its
    command-line option, its ``[default: ...]`` text and the configuration reference (the
    manual's ``configuration.md``) are all derived from. It sits in the ``metadata`` of
    :class:`Config`'s field; the default is the field's own.

    ``kind``: ``number``, ``integer``, ``seconds``, ``bool``, ``string``, ``list`` (of
    strings). ``low``/``high`` bound a number (``low_open``/``high_open``: the bound itself
    is out), ``choices`` a string; ``bounds`` words the range in messages ("at least 1").
    ``option`` is where the command line has it: ``everyday`` (``db --help`` shows it) or
    ``tuning`` (``--set KEY=VALUE`` only; TOML and the API take every key).
    ``flag`` renames the option (``--ignore``), ``off`` names a boolean's negative
    (``--keep-params``), ``metavar`` its value; ``values`` is ``repeat`` for an option given
    once a value, ``csv`` for one comma-separated value.
    """

    help: str
    kind: str
    option: str = "tuning"
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple[str, ...] = ()
    bounds: str | None = None
    flag: str | None = None
    off: str | None = None
    metavar: str | None = None
    values: str | None = None
    wording: str | None = None  # the type in words, where the kind's is too vague
    derived: str | None = None  # for a default of None: how the value is derived, in words

    #: What each kind must be, and how a message words it.
    KINDS: ClassVar[dict[str, tuple[tuple[type, ...], str]]] = {
        "number": ((int, float), "a number"),
        "integer": ((int,), "an integer"),
        "seconds": ((int, float), "a number of seconds"),
        "bool": ((bool,), "true or false"),
        "string": ((str,), "a string"),
        "list": ((list, tuple), "a list of strings"),
    }

    def range_text(self) -> str | None:
        """The allowed values in words ("in (0, 1]", "at least 1"), if bounded."""
        if self.bounds:
            return self.bounds
        if self.choices:
            return "one of " + ", ".join(self.choices)
        if self.low is not None and self.high is not None:
            if self.kind == "integer":
                return f"in {self.low:,.0f}..{self.high:,.0f}"
            left, right = "(" if self.low_open else "[", ")" if self.high_open else "]"
            return f"in {left}{_num(self.low)}, {_num(self.high)}{right}"
        if self.low is not None:
            return f"more than {_num(self.low)}" if self.low_open else f"{_num(self.low)} or more"
        return None

    def in_range(self, value: Any) -> bool:
        if self.choices:
            return value in self.choices
        if self.kind not in ("number", "integer", "seconds"):
            return True
        v = float(value)
        if math.isnan(v):
            return False
        if self.low is not None and (v <= self.low if self.low_open else v < self.low):
            return False
        return not (self.high is not None and (v >= self.high if self.high_open else v > self.high))


def _num(x: float) -> str:
    return f"{x:g}" if abs(x) < 1e6 else f"{x:,.0f}"


def setting(default: Any, help: str, kind: str, **kw: Any) -> Any:
    """A :class:`Config` field with its :class:`Setting`."""
    meta = {"setting": Setting(help=help, kind=kind, **kw)}
    if isinstance(default, Callable):  # type: ignore[arg-type]
        return field(default_factory=default, metadata=meta)
    return field(default=default, metadata=meta)


def _check_type(name: str, value: Any, spec: Setting) -> None:
    """Raise :class:`ConfigError` naming the key and the type it needs."""
    types, wording = Setting.KINDS[spec.kind]
    wording = spec.wording or wording
    ok = isinstance(value, types) and (bool in types or not isinstance(value, bool))
    if ok and isinstance(value, (list, tuple)):
        ok = all(isinstance(v, str) for v in value)
        wording += "" if wording.endswith("strings") else " (strings)"
    if not ok:
        raise ConfigError(f"{name} must be {wording}, got {value!r} ({type(value).__name__})")


def _check_languages(codes: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """``--languages``: known codes, lowercased, each once, in the order given."""
    out = tuple(dict.fromkeys(c.strip().lower() for c in codes if c.strip()))
    if codes and not out:
        raise ConfigError("languages must name at least one language code, e.g. en,de")
    unknown = language.unknown_codes(out)
    if unknown:
        raise ConfigError(
            f"unknown language code(s) {', '.join(unknown)}; the known codes are: "
            f"{', '.join(language.KNOWN_LANGUAGES)}"
        )
    if out and not language.available():
        raise ConfigError(
            "languages needs the language identifier: pip install \"webdedup[lang]\""
        )
    return out


@dataclass(frozen=True)
class Config:
    """All parameters of a run. Build one directly, from a TOML file, or via ``Deduplicator``.

    Each field carries its :class:`Setting` (help, type, range, where the command line has
    it): :func:`settings` lists them, the command line's options and the manual's
    configuration reference are made from them. ``columns`` maps the input columns.

    >>> Config(threshold=0.85).threshold
    0.85
    >>> Config(chunk_size=0)
    Traceback (most recent call last):
    ...
    webdedup.errors.ConfigError: chunk_size must be at least 1, got 0
    """

    method: str = setting(
        "minhash", "Near-duplicate method. 'vectors' (needs webdedup[vectors]) also finds "
        "reworded copies (TF-IDF vectors, nearest neighbours) and always makes a full run.",
        "string", option="everyday", choices=METHODS)
    threshold: float = setting(
        0.9, "Similarity from which two pages are near-duplicates: a Levenshtein ratio of "
        "their texts (a copy contained in another page is a duplicate at any threshold).",
        "number", option="everyday", low=0.0, high=1.0, low_open=True)
    distance: int = setting(
        50, "Window of sorted-URL neighbours compared by --method levenshtein.",
        "integer", option="everyday", low=1, high=MAX_DISTANCE)
    discard_params: bool = setting(
        False, "Drop every URL query parameter when canonicalizing (not only tracking ones).",
        "bool", option="everyday", off="--keep-params")
    n_min: int = setting(
        0, "Ignore the pages of hosts with fewer than N pages (0: off).",
        "integer", option="everyday", low=0, bounds="0 (off) or more", metavar="N")
    urls_to_ignore: tuple[str, ...] = setting(
        (), "Ignore URLs matching a path-segment rule: 'tag' (any segment), '/search' (path "
        "start), 'blog/page-*' (glob per segment), 'example.com/private' (host). Repeatable.",
        "list", option="everyday", flag="--ignore", metavar="PATTERN", values="repeat",
        wording="a list of patterns")
    ignore_match: str = setting(
        "segments", "How urls_to_ignore patterns match a URL: 'segments' (webdedup's "
        "path-segment rules) or 'substring' (anywhere in the URL, as the Deduplicator webdedup "
        "follows matches them; that API's default).", "string", choices=IGNORE_MATCHES)
    election: tuple[str, ...] = setting(
        DEFAULT_ELECTION, "Election order of a group's canonical page, best first. Keys: "
        + ", ".join(ELECTION_KEYS) + ".",
        "list", option="everyday", metavar="KEYS", values="csv", wording="a list of election keys")
    shingle_size: int = setting(
        5, "Words per shingle (minhash, simhash).", "integer", low=1,
        bounds="at least 1")
    num_perm: int = setting(
        128, "MinHash permutations.", "integer", low=16, high=MAX_NUM_PERM)
    seed: int = setting(
        1, "Seed of the MinHash permutations.", "integer", low=0, high=2**32 - 1,
        bounds="in 0..2**32-1")
    min_words: int = setting(
        50, "Pages with fewer words never join a near-duplicate group (exact duplicates are "
        "still grouped).", "integer", low=0)
    similarity: str = setting(
        "overlap", "The shingle measure minhash and simhash verification compute first: "
        "overlap (shared shingles over the smaller page's) or jaccard.", "string",
        choices=SIMILARITIES)
    lsh_threshold: float | None = setting(
        None, "Jaccard level the minhash LSH bands find candidates at (lower finds more; "
        "verification decides).", "number", low=0.0, high=1.0, low_open=True, high_open=True,
        derived="0.3 from threshold 0.9 up, lower under it (lsh_level_for)")
    chain_floor: float = setting(
        0.5, "A page joins a near group only if at least this similar to the group's "
        "canonical.", "number", low=0.0, high=1.0)
    chunk_size: int = setting(
        256, "Pages per batch handed to a worker process.", "integer", low=1,
        bounds="at least 1")
    busy_timeout: float = setting(
        5.0, "Seconds to wait for a lock held by another writer.", "seconds",
        option="everyday", low=0, high=MAX_BUSY_TIMEOUT, metavar="SECONDS",
        bounds=f"0 to {MAX_BUSY_TIMEOUT:,.0f} seconds")
    write_lock: float = setting(
        1.0, "About the longest one write transaction may hold the write lock: a larger write "
        "(a first run on a big crawl) is split into transactions of about this length; 0 "
        "writes everything in one transaction. Keep it at 0.2 or more and well under the "
        "crawler's own busy timeout. --prune's move of rows is not split.", "seconds",
        option="everyday", low=0, high=MAX_BUSY_TIMEOUT, metavar="SECONDS",
        bounds=f"0 (one transaction) to {MAX_BUSY_TIMEOUT:,.0f} seconds")
    workers: int = setting(
        0, "Processes to use (0: all cores).", "integer", option="everyday", low=0,
        bounds="0 (all cores) or more")
    languages: tuple[str, ...] = setting(
        (), "Process only pages in these languages, e.g. en,de (ISO 639-1 codes as CLD2 "
        "gives them, or the crawler's lang column); the others are kept and marked ignored "
        "with reason 'language'. Turns on --detect-language.", "list", option="everyday",
        metavar="CODES", values="csv", wording="a list of language codes")
    detect_language: bool = setting(
        False, "Detect each page's language (CLD2, pip install 'webdedup[lang]') for the "
        "export and the language guard, when the table has no language column of its own. "
        "Adds about a sixth to a run's CPU time.", "bool", option="everyday")
    strip_segments: bool = setting(
        False, "Leave each host's repeated segments (lines on segment_min_pages of its pages: "
        "navigation, footers, banners; see 'webdedup segments') out of shingling and "
        "verification (minhash, simhash).", "bool", option="everyday", off="--keep-segments")
    own_content: bool = setting(
        True, "Decide near-duplicates on each page's own text: without its host's template "
        "lines (on segment_min_pages of its pages, in texts that differ: navigation, footers, "
        "banners); a page with fewer than min_words words of its own is 'thin' (minhash, "
        "simhash, levenshtein).", "bool", option="everyday", flag="--own-content",
        off="--whole-text")
    count_segments: bool = setting(
        False, "Count each host's repeated lines for 'webdedup segments' (about a third more "
        "CPU; --strip-segments counts them too).", "bool", option="everyday")
    segment_min_pages: int = setting(
        3, "A line on N pages of its host or more is a repeated segment.", "integer", low=2,
        bounds="2 or more")
    columns: Columns = field(default_factory=Columns)
    embedder: str | None = setting(
        None, "vectors only: 'module:function', a function of a list of normalized texts that "
        "returns one vector a text, used instead of the reduced TF-IDF vectors.", "string",
        )

    def __post_init__(self) -> None:
        if isinstance(self.columns, Mapping):  # the API may pass a plain dict
            object.__setattr__(self, "columns", Columns.from_mapping(self.columns))
        for name, spec in settings().items():
            value = getattr(self, name)
            if value is None and (name == "embedder" or spec.derived):
                continue
            _check_type(name, value, spec)
            if not spec.in_range(value):
                raise ConfigError(f"{name} must be {spec.range_text()}, got {value!r}")
        if self.strip_segments and self.method not in ("minhash", "simhash"):
            raise ConfigError(
                "strip_segments works with the minhash and simhash methods only (the "
                f"{self.method} method compares whole texts); drop it or pick one of those"
            )
        if self.embedder is not None and not (
            isinstance(self.embedder, str) and all(self.embedder.partition(":")[::2])
        ):
            raise ConfigError(
                f"embedder must be 'module:function' (a function of a list of texts that "
                f"returns one vector a text), got {self.embedder!r}"
            )
        try:  # compiled here so that a bad rule is a configuration error, not a crash later
            IgnoreRules.from_patterns(self.urls_to_ignore, self.ignore_match)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"urls_to_ignore: {exc}") from exc
        object.__setattr__(self, "urls_to_ignore", tuple(self.urls_to_ignore))
        object.__setattr__(self, "languages", _check_languages(self.languages))
        object.__setattr__(self, "election", validate_election(self.election))

    # -- the parameters that shape stored state -------------------------------------------
    @property
    def detects_language(self) -> bool:
        """Whether phase 1 detects languages (``detect_language``, or a ``languages`` filter)."""
        return bool(self.detect_language) or bool(self.languages)

    @property
    def lsh_level(self) -> float:
        """The Jaccard level of the LSH bands: ``lsh_threshold``, or :func:`lsh_level_for`
        the threshold when it is not given."""
        if self.lsh_threshold is None:
            return lsh_level_for(float(self.threshold))
        return float(self.lsh_threshold)

    def near_spec(self) -> NearSpec:
        """The parameters of phase 4 this configuration sets (built once a run).

        >>> spec = Config(threshold=0.8).near_spec()
        >>> spec.method, spec.threshold, spec.bands * spec.rows <= spec.num_perm
        ('minhash', 0.8, True)
        """
        return NearSpec.derive(
            self.method,
            self.threshold,
            self.lsh_level,
            chain_floor=self.chain_floor,
            similarity=self.similarity,
            min_words=self.min_words,
            shingle_size=self.shingle_size,
            num_perm=self.num_perm,
            seed=self.seed,
            distance=self.distance,
        )

    @property
    def counts_segments(self) -> bool:
        """Whether phase 1 hashes segments (``count_segments``, or ``strip_segments``)."""
        return bool(self.count_segments) or bool(self.strip_segments)

    def shaping_parameters(self) -> dict[str, Any]:
        """The parameters whose change invalidates stored prepared rows, signatures and edges.

        Also the version of how band keys are computed, where it changed since the method
        shipped: stored keys of an older version must not meet new ones; and the versions of
        text normalization (hashes, tokens) and of ``minhash`` verification (its grey zone).
        """
        # simhash "banding" 3: the candidate distance is wider than the threshold's, and
        # simhash "verification" 3: its candidates are verified on the texts (sketch.verify)
        simhash = {"simhash_banding": 3, "verification": 3}
        banding: dict[str, Any] = simhash if self.method == "simhash" else {}
        # minhash "sketch" 2: the stored sketch is the page's band keys, not its signature
        # minhash "verification" 3: the threshold is a Levenshtein ratio (sketch.verify)
        banding |= {"verification": 3, "sketch": 2} if self.method == "minhash" else {}
        banding |= {"vectors": 1, "embedder": self.embedder} if self.method == "vectors" else {}
        if self.ignore_match != "segments":  # absent otherwise: earlier fingerprints stay valid
            banding |= {"ignore_match": self.ignore_match}
        if self.counts_segments:  # absent otherwise: earlier fingerprints stay valid
            banding |= {"count_segments": SEGMENTS_VERSION}
        if self.own_content and self.method != "vectors":  # absent otherwise, as segments
            banding |= {"own_content": OWN_VERSION, "own_min_texts": int(self.segment_min_pages)}
        if self.strip_segments:
            banding |= {
                "strip_segments": SEGMENTS_VERSION,
                "segment_min_pages": int(self.segment_min_pages),
            }
        return banding | {
            "normalization": NORMALIZATION_VERSION,
            "method": self.method,
            "threshold": float(self.threshold),
            "distance": int(self.distance),
            "discard_params": bool(self.discard_params),
            "n_min": int(self.n_min),
            "urls_to_ignore": list(self.urls_to_ignore),
            "election": list(self.election),
            "shingle_size": int(self.shingle_size),
            "num_perm": int(self.num_perm),
            "seed": int(self.seed),
            "min_words": int(self.min_words),
            "similarity": self.similarity,
            "lsh_threshold": self.lsh_level,
            "chain_floor": float(self.chain_floor),
            "language": LANGUAGE_VERSION if self.detects_language else LANGUAGE_COLUMN_VERSION,
            "languages": sorted(self.languages),
            "detect_language": self.detects_language,
            "columns": _columns_shape(self.columns),
        }

    def changed_from(self, stored: Mapping[str, Any]) -> list[str]:
        """The shaping parameters whose value differs from ``stored`` (an earlier run's
        :meth:`shaping_parameters`, or its whole stored configuration), in the user's words:
        an option as its command line names it, a key ``--set`` takes, a column mapping, or
        what a newer webdedup computes differently.

        >>> Config(threshold=0.8).changed_from(Config().shaping_parameters())
        ['--threshold 0.9 -> 0.8']
        >>> Config(lsh_threshold=0.35).changed_from(Config().shaping_parameters())
        ['lsh_threshold 0.3 -> 0.35']
        >>> Config().changed_from({**Config().shaping_parameters(), "normalization": 1})
        ['how texts are normalized (a newer webdedup)']
        """
        specs = settings()
        new_params = self.shaping_parameters()
        # a key that only applies to the new method or to stripping is said by that change
        switched = self.changed_keys(stored) & {"method", "strip_segments", "count_segments"}
        out = []
        # a key the new run no longer has (an option turned back off) is said too
        gone = [k for k in stored if k not in new_params and (k in specs or k in _INTERNAL)]
        for key in [*new_params, *gone]:
            old = stored.get(key)
            new = new_params[key] if key in new_params else (
                default_of(key) if key in specs else None
            )
            if old is None and key not in stored and switched and key not in switched:
                continue
            if key in gone and key in _INTERNAL and key not in specs and switched:
                continue  # a version of the old method's: said by --method
            if key == "count_segments" and "strip_segments" in switched:
                continue  # stripping counts: said by --strip-segments
            if key == "lsh_threshold" and self.lsh_threshold is None and (
                stored.get("threshold") != new_params["threshold"]
            ):
                continue  # derived from the threshold: said by --threshold
            if key == "columns" and isinstance(old, Mapping) and isinstance(new, Mapping):
                out += [
                    f"--column {k}: {old.get(k)!r} -> {v!r}" if k != "table"
                    else f"--table {old.get(k)!r} -> {v!r}"
                    for k, v in new.items()
                    if old.get(k) != v
                ]
            elif old == new or (isinstance(old, (list, tuple)) and list(old) == new):
                continue
            elif key in specs:
                spec = specs[key]
                name = (spec.flag or "--" + key.replace("_", "-")) if spec.option == "everyday" \
                    else key
                if spec.kind == "bool":  # stored as a version where on (strip_segments)
                    if bool(old) == bool(new):
                        out.append(f"how {name} works (a newer webdedup)")
                        continue
                    old, new = bool(old), bool(new)
                out.append(f"{name} {_shown(old)} -> {_shown(new)}")
            elif key in _INTERNAL:
                if key == "language" and "detect_language" in self.changed_keys(stored):
                    continue  # said by --detect-language
                out.append(_INTERNAL[key])
            else:
                out.append(f"{key} {_shown(old)} -> {_shown(new)}")
        return out

    def changed_keys(self, stored: Mapping[str, Any]) -> set[str]:
        """The names of the shaping parameters whose value differs from ``stored``."""
        new = self.shaping_parameters()
        return {
            k for k, v in new.items()
            if stored.get(k) != v and not (
                isinstance(stored.get(k), (list, tuple)) and list(stored[k]) == v
            )
        } | {k for k in stored if k not in new}

    def fingerprint(self) -> str:
        """A short stable hash of :meth:`shaping_parameters`."""
        blob = json.dumps(self.shaping_parameters(), sort_keys=True).encode()
        return hashlib.sha1(blob).hexdigest()[:16]

    def __str__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.shaping_parameters().items())
        return f"Config({params})"

    # -- construction helpers ---------------------------------------------------------------
    def with_overrides(self, **overrides: Any) -> Config:
        """A copy with the given fields replaced; ``None`` values are ignored."""
        clean = {k: v for k, v in overrides.items() if v is not None}
        known = {f.name for f in fields(self)}
        unknown = sorted(set(clean) - known)
        if unknown:
            raise ConfigError(f"unknown parameter(s): {', '.join(unknown)}")
        return replace(self, **clean)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Config:
        """Build from a dict as found in a TOML file (a ``[columns]`` table maps columns)."""
        data = dict(data)
        if "webdedup" in data and isinstance(data["webdedup"], Mapping):
            nested = dict(data.pop("webdedup"))
            nested.update(data)
            data = nested
        columns = data.pop("columns", {})
        if not isinstance(columns, Mapping):
            raise ConfigError("[columns] must be a table of name = \"column\" pairs")
        known = {f.name for f in fields(cls)} - {"columns"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(
                f"unknown key(s) in config: {', '.join(unknown)}; "
                f"known keys: {', '.join(sorted(known))} and a [columns] table"
            )
        for key in ("urls_to_ignore", "election", "languages"):
            if key in data and isinstance(data[key], list):
                data[key] = tuple(data[key])
        try:
            return cls(columns=Columns.from_mapping(columns), **data)
        except TypeError as exc:  # pragma: no cover - defensive
            raise ConfigError(str(exc)) from exc

    @classmethod
    def from_toml(cls, path: str | Path) -> Config:
        """Read a TOML config file (see the README for its keys)."""
        path = Path(path)
        try:
            with path.open("rb") as fh:
                data = tomllib.load(fh)
        except FileNotFoundError as exc:
            raise ConfigError(f"config file {path} does not exist") from exc
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"config file {path} is not valid TOML: {exc}") from exc
        return cls.from_mapping(data)


def lsh_level_for(threshold: float) -> float:
    """The Jaccard level the LSH bands are tuned to by default at ``threshold``: 0.3 from
    0.9 up, 0.3 - 3 x (0.9 - threshold) under it, never under 0.1.

    Copies made by scattered word edits keep few 5-word shingles: at a Levenshtein ratio of
    0.87-0.92 a tenth of them has a Jaccard under 0.1, and bands tuned to 0.3 (37 x 3)
    proposed 91 % of the pairs above 0.87 and 96 % of those above 0.92; 0.15 (51 x 2)
    proposes 98 % and 100 % (``benchmarks/corpus/threshold_curve.py``). At 0.9 and above the 0.3
    bands propose what the threshold asks for, at half the candidates of 0.2 (28 x 2).

    >>> lsh_level_for(0.9), lsh_level_for(0.85), lsh_level_for(0.5)
    (0.3, 0.15, 0.1)
    """
    return round(max(0.1, min(0.3, 0.3 - 3 * (0.9 - float(threshold)))), 6)


#: The shaping parameters that are versions of webdedup's own algorithms, in words.
_INTERNAL = {
    "normalization": "how texts are normalized (a newer webdedup)",
    "verification": "how a candidate is verified (a newer webdedup: the threshold is a "
    "Levenshtein ratio)",
    "sketch": "how sketches are stored (a newer webdedup)",
    "simhash_banding": "how simhash bands are cut (a newer webdedup)",
    "vectors": "how vectors are made (a newer webdedup)",
    "language": "how languages are detected (a newer webdedup)",
    "count_segments": "--count-segments (or how segments are cut, in a newer webdedup)",
}


def _shown(value: Any) -> str:
    """A stored parameter value as a user writes it: on/off, a comma list, none."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, (list, tuple)):
        return ",".join(map(str, value)) or "none"
    return f"{value:g}" if isinstance(value, float) else str(value)


def settings() -> dict[str, Setting]:
    """Each configuration key's :class:`Setting`, in the order of :class:`Config`'s fields."""
    return {f.name: f.metadata["setting"] for f in fields(Config) if "setting" in f.metadata}


def default_of(name: str) -> Any:
    """The default of configuration key ``name`` (the field's own).

    >>> default_of("threshold"), default_of("lsh_threshold")
    (0.9, None)
    """
    f = next(f for f in fields(Config) if f.name == name)
    return f.default_factory() if f.default_factory is not MISSING else f.default
