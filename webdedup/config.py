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
import sys
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from .algorithms import language
from .algorithms.election import DEFAULT_ELECTION, validate_election
from .algorithms.minhash import MAX_NUM_PERM
from .algorithms.own import OWN_VERSION
from .algorithms.segments import SEGMENTS_VERSION
from .algorithms.text import NORMALIZATION_VERSION
from .algorithms.urls import IgnoreRules
from .errors import ConfigError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

#: Version of how a page's language is detected (a change rebuilds the stored state of the
#: runs that detect languages; 2: short texts cut into 3 pieces).
LANGUAGE_VERSION = 2
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
    empty, from ``html`` through trafilatura's extraction.
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
            if not isinstance(value, str) or not value or "\x00" in value:
                raise ConfigError(
                    f"column {f.name!r} must map to a non-empty name, got {value!r}"
                )


#: The type each parameter must have (from a TOML file or the API): name -> (types, wording).
_TYPES: dict[str, tuple[tuple[type, ...], str]] = {
    "method": ((str,), "a string"),
    "threshold": ((int, float), "a number"),
    "distance": ((int,), "an integer"),
    "discard_params": ((bool,), "true or false"),
    "n_min": ((int,), "an integer"),
    "urls_to_ignore": ((list, tuple), "a list of patterns"),
    "election": ((list, tuple), "a list of election keys"),
    "shingle_size": ((int,), "an integer"),
    "num_perm": ((int,), "an integer"),
    "seed": ((int,), "an integer"),
    "min_words": ((int,), "an integer"),
    "similarity": ((str,), "a string"),
    "lsh_threshold": ((int, float), "a number"),
    "chain_floor": ((int, float), "a number"),
    "chunk_size": ((int,), "an integer"),
    "busy_timeout": ((int, float), "a number of seconds"),
    "write_lock": ((int, float), "a number of seconds"),
    "workers": ((int,), "an integer"),
    "languages": ((list, tuple), "a list of language codes"),
    "detect_language": ((bool,), "true or false"),
    "strip_segments": ((bool,), "true or false"),
    "own_content": ((bool,), "true or false"),
    "count_segments": ((bool,), "true or false"),
    "segment_min_pages": ((int,), "an integer"),
    "columns": ((Columns,), "a [columns] table"),
}


def _check_type(name: str, value: Any, expected: tuple[tuple[type, ...], str] | None) -> None:
    """Raise :class:`ConfigError` naming the key and the type it needs."""
    if expected is None:
        return
    types, wording = expected
    ok = isinstance(value, types) and (bool in types or not isinstance(value, bool))
    if ok and isinstance(value, (list, tuple)):
        ok = all(isinstance(v, str) for v in value)
        wording += " (strings)"
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

    ``threshold`` is the similarity at or above which two pages are near-duplicates;
    ``distance`` the window of the ``levenshtein`` method; ``n_min`` ignores the pages of hosts
    with fewer than ``n_min`` pages; ``min_words`` is the shortest normalized text (in words,
    :func:`~webdedup.algorithms.text.word_length`: in scripts without spaces two Chinese or
    Japanese characters, or five Thai, Lao, Khmer or Burmese ones, count as a word) that may
    join a near-duplicate group (exact duplicates are still grouped).
    ``similarity`` is how ``minhash`` verifies a candidate: ``overlap`` (shared shingles over
    the smaller page's shingles) or ``jaccard``; ``lsh_threshold`` is the Jaccard level the
    LSH bands are tuned to find candidates at (lower finds more, verification decides; 0.3
    proposes copies framed in long boilerplate or cut short, whose Jaccard is 0.3-0.5).
    ``chain_floor``: a page joins a near-duplicate group only when its similarity to the
    group's canonical is at least this (besides its verified edge to the group's centre).
    ``languages``: when given, only pages in these languages are processed (the others are
    marked ignored with reason ``language``; :mod:`~webdedup.algorithms.language`).
    ``detect_language``: detect each page's language (py3langid, the ``lang`` extra) when
    the crawler's table has no language column. Off by default: it costs about as much CPU
    as the rest of a run (README, "Language"); ``languages`` turns it on.
    ``write_lock``: about the longest, in seconds, that one write transaction of a run may
    hold the database's write lock. A write estimated to take longer (a first or full run
    on a big crawl rewrites every row) is split into transactions of about that length;
    ``0`` writes everything in one transaction whatever it costs (README, "Incremental nightly
    runs").
    ``embedder`` (``vectors`` only): ``"module:function"``, a function that takes a list of
    normalized texts and returns one vector a text (e.g. a neural sentence embedding) used
    instead of the reduced TF-IDF vectors to find candidates
    (:mod:`webdedup.algorithms.vectors`).
    ``count_segments``: count each host's repeated segments for ``webdedup segments`` (off by
    default: it adds about a third to a run's CPU; README, "Repeated segments").
    ``strip_segments`` (``minhash`` and ``simhash``; implies ``count_segments``): leave a
    host's repeated segments (lines
    on ``segment_min_pages`` of its pages or more: navigation, footers, banners) out of
    shingling and verification (:mod:`~webdedup.algorithms.segments`; README, "Repeated
    segments").
    ``own_content`` (on by default; ``minhash``, ``simhash``, ``levenshtein``): near-duplicate
    decisions compare each page's own text, without its host's template lines (on
    ``segment_min_pages`` of its pages or more, in texts that differ); a page with fewer than
    ``min_words`` words of its own is ``thin`` (:mod:`~webdedup.algorithms.own`; README,
    "Own content and thin pages").
    """

    method: str = "minhash"
    threshold: float = 0.9
    distance: int = 50
    discard_params: bool = False
    n_min: int = 0
    urls_to_ignore: tuple[str, ...] = ()
    election: tuple[str, ...] = DEFAULT_ELECTION
    shingle_size: int = 5
    num_perm: int = 128
    seed: int = 1
    min_words: int = 50
    similarity: str = "overlap"
    lsh_threshold: float = 0.3
    chain_floor: float = 0.5
    chunk_size: int = 256
    busy_timeout: float = 5.0
    write_lock: float = 1.0
    workers: int = 0
    languages: tuple[str, ...] = ()
    detect_language: bool = False
    strip_segments: bool = False
    own_content: bool = True
    count_segments: bool = False
    segment_min_pages: int = 3
    columns: Columns = field(default_factory=Columns)
    embedder: str | None = None

    def __post_init__(self) -> None:
        if isinstance(self.columns, Mapping):  # the API may pass a plain dict
            object.__setattr__(self, "columns", Columns.from_mapping(self.columns))
        for f in fields(self):
            _check_type(f.name, getattr(self, f.name), _TYPES.get(f.name))
        if self.method not in METHODS:
            raise ConfigError(f"method must be one of {', '.join(METHODS)}, got {self.method!r}")
        if not 0.0 < float(self.threshold) <= 1.0:
            raise ConfigError(f"threshold must be in (0, 1], got {self.threshold!r}")
        if not 1 <= int(self.distance) <= MAX_DISTANCE:
            raise ConfigError(f"distance must be in 1..{MAX_DISTANCE:,}, got {self.distance!r}")
        if int(self.n_min) < 0:
            raise ConfigError(f"n_min must be 0 (off) or more, got {self.n_min!r}")
        if int(self.shingle_size) < 1:
            raise ConfigError(f"shingle_size must be at least 1, got {self.shingle_size!r}")
        if not 16 <= int(self.num_perm) <= MAX_NUM_PERM:
            raise ConfigError(f"num_perm must be in 16..{MAX_NUM_PERM}, got {self.num_perm!r}")
        if not 0 <= int(self.seed) < 2**32:
            raise ConfigError(f"seed must be in 0..2**32-1, got {self.seed!r}")
        if int(self.min_words) < 0:
            raise ConfigError(f"min_words must be 0 or more, got {self.min_words!r}")
        if self.similarity not in SIMILARITIES:
            raise ConfigError(
                f"similarity must be one of {', '.join(SIMILARITIES)}, got {self.similarity!r}"
            )
        if not 0.0 <= float(self.chain_floor) <= 1.0:
            raise ConfigError(f"chain_floor must be in [0, 1], got {self.chain_floor!r}")
        if not 0.0 < float(self.lsh_threshold) < 1.0:
            raise ConfigError(f"lsh_threshold must be in (0, 1), got {self.lsh_threshold!r}")
        if int(self.chunk_size) < 1:
            raise ConfigError(f"chunk_size must be at least 1, got {self.chunk_size!r}")
        if not 0 <= float(self.busy_timeout) <= MAX_BUSY_TIMEOUT:  # also NaN
            raise ConfigError(
                f"busy_timeout must be 0 to {MAX_BUSY_TIMEOUT:,.0f} seconds, "
                f"got {self.busy_timeout!r}"
            )
        if not 0 <= float(self.write_lock) <= MAX_BUSY_TIMEOUT:  # also NaN
            raise ConfigError(
                f"write_lock must be 0 (one transaction) to {MAX_BUSY_TIMEOUT:,.0f} seconds, "
                f"got {self.write_lock!r}"
            )
        if int(self.workers) < 0:
            raise ConfigError(f"workers must be 0 (all cores) or more, got {self.workers!r}")
        if int(self.segment_min_pages) < 2:
            raise ConfigError(
                f"segment_min_pages must be 2 or more, got {self.segment_min_pages!r}"
            )
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
            IgnoreRules.from_patterns(self.urls_to_ignore)
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
    def counts_segments(self) -> bool:
        """Whether phase 1 hashes segments (``count_segments``, or ``strip_segments``)."""
        return bool(self.count_segments) or bool(self.strip_segments)

    def shaping_parameters(self) -> dict[str, Any]:
        """The parameters whose change invalidates stored prepared rows, signatures and edges.

        Also the version of how band keys are computed, where it changed since the method
        shipped: stored keys of an older version must not meet new ones; and the versions of
        text normalization (hashes, tokens) and of ``minhash`` verification (its grey zone).
        """
        banding: dict[str, Any] = {"simhash_banding": 2} if self.method == "simhash" else {}
        # minhash "sketch" 2: the stored sketch is the page's band keys, not its signature
        banding |= {"verification": 2, "sketch": 2} if self.method == "minhash" else {}
        banding |= {"vectors": 1, "embedder": self.embedder} if self.method == "vectors" else {}
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
            "lsh_threshold": float(self.lsh_threshold),
            "chain_floor": float(self.chain_floor),
            "language": LANGUAGE_VERSION if self.detects_language else LANGUAGE_COLUMN_VERSION,
            "languages": sorted(self.languages),
            "detect_language": self.detects_language,
            "columns": asdict(self.columns),
        }

    def changed_from(self, stored: Mapping[str, Any]) -> list[str]:
        """The shaping parameters whose value differs from ``stored`` (an earlier run's
        :meth:`shaping_parameters`, or its whole stored configuration), as ``name: old -> new``.

        >>> Config(threshold=0.8).changed_from(Config().shaping_parameters())
        ['threshold: 0.9 -> 0.8']
        """
        out = []
        for key, new in self.shaping_parameters().items():
            old = stored.get(key)
            if key == "columns" and isinstance(old, Mapping) and isinstance(new, Mapping):
                out += [
                    f"column {k}: {old.get(k)!r} -> {v!r}"
                    for k, v in new.items()
                    if old.get(k) != v
                ]
            elif old != new and not (isinstance(old, (list, tuple)) and list(old) == new):
                out.append(f"{key}: {old!r} -> {new!r}")
        return out

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
