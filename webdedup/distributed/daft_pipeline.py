"""The phases of ``webdedup db`` as Daft dataframe operations (``webdedup daft``).

The rules are webdedup's own, called, not rewritten: phase 1 is a batch UDF around
:func:`~webdedup.pipeline.phase1_prepare.prepare_batch` (URL canonicalization, normalized-text
hash, MinHash signature and LSH band keys: bit-identical to the SQLite path), verification a
batch UDF around :func:`~webdedup.pipeline.phase4_near.verify_chunk`, and the no-chaining star
rule :func:`~webdedup.algorithms.cluster.group_near` runs per connected component. Between
them, the dataframe does what SQL does on one machine:

1. prepare: one UDF over the pages (the ``n_min`` filter is a group-by on hosts);
2. URL election: ``row_number() OVER (PARTITION BY url_key ORDER BY <election>)``;
3. exact election: URL groups sharing a content hash are linked, their connected components
   (:mod:`.components`) elected over with the same window;
4. near-duplicates: band keys exploded and self-joined into candidate pairs of different
   exact groups, verified in batches, lifted to exact groups, split into connected components,
   each clustered by ``group_near`` with the election order;
5. the assignment (group, canonical, ``dup_kind``, score) per page, written as Parquet with
   everything ``webdedup db --assignments`` stores for the next incremental run.

The reviewers' verdicts travel in the input's ``canonical_rank`` and ``not_duplicate_of``
columns (``webdedup export --parquet`` writes them) and are honoured as ``webdedup db``
honours them: chosen canonicals first in all three elections, "not a duplicate" pairs lifted to
exact groups (:func:`~webdedup.algorithms.cluster.groups_apart`), dropped from the group edges
(:func:`~webdedup.algorithms.cluster.drop_cannot_links`) and kept apart by ``group_near``. The
language guard (:func:`~webdedup.algorithms.language.different_languages`) drops verified
edges between pages surely in different languages, before they are stored and clustered.

Only ``method = "minhash"`` runs here; the others are refused with a message.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import socket
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from datetime import date, datetime
from pathlib import Path
from typing import Any

from ..algorithms.cluster import drop_cannot_links, group_near, groups_apart
from ..algorithms.election import ELECTION_KEYS, sort_key, validate_election
from ..algorithms.language import different_languages
from ..algorithms.sketch import NearSpec, text_similarity
from ..config import Config
from ..errors import (
    ClusterUnreachable,
    ConfigError,
    DiskFull,
    InputError,
    MissingColumn,
    ReadOnlyOutput,
)
from ..pipeline.phase1_prepare import PrepareJob, prepare_batch
from ..pipeline.phase4_near import verify_chunk
from ..store.pages import PageInput, as_text, page_digest
from ..version import __version__
from .components import connected_components
from .objectstore import ObjectStore, bucket_path, is_remote

#: Methods this path runs (the others need the SQLite path for now).
SUPPORTED_METHODS = ("minhash",)
#: The page id column of the Parquet input (``webdedup export --parquet`` writes it).
ID_COLUMN = "id"
#: Seconds to wait for a Ray head to answer before giving up.
RAY_CONNECT_TIMEOUT = 10.0
#: HTTP/2's client preface and an empty SETTINGS frame; a gRPC server (a Ray head's GCS, Ray
#: client) answers with its own SETTINGS frame first (RFC 9113, section 3.4).
HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
HTTP2_SETTINGS = 0x04
#: The manifest next to the output's Parquet files.
MANIFEST = "_webdedup_manifest.json"
MANIFEST_FORMAT = "webdedup-daft-assignments"
MANIFEST_VERSION = 1
#: Pages and candidate pairs handed to one UDF call.
PREPARE_BATCH = 256
VERIFY_BATCH = 1_000
#: Pages a shuffle partition is sized for.
PAGES_PER_PARTITION = 20_000

_FILE = "_webdedup_file"


@dataclass
class DaftResult:
    """What ``webdedup daft`` did."""

    out: str
    runner: str
    pages: int
    ignored: int
    url_duplicates: int
    exact_duplicates: int
    near_duplicates: int
    groups: int
    candidates: int
    edges: int
    wall_seconds: float
    timings: dict[str, float] = field(default_factory=dict)

    def summary(self) -> str:
        return (
            f"{self.pages:,} pages ({self.ignored:,} ignored), "
            f"{self.url_duplicates:,} URL duplicates, {self.exact_duplicates:,} exact duplicates, "
            f"{self.near_duplicates:,} near-duplicates in {self.groups:,} groups; "
            f"Daft ({self.runner}) in {self.wall_seconds:.2f} s -> {self.out}"
        )


# -- the runner ---------------------------------------------------------------------------------
def use_runner(ray_address: str | None) -> str:
    """Choose Daft's runner for this process: native, or Ray at ``ray_address``.

    Daft fixes the runner once per process; asking for another one later is an error.
    ``ray_address`` is ``auto`` (the cluster this machine belongs to), ``HOST:PORT`` (a head's
    GCS port) or ``ray://HOST:PORT`` (Ray client). A host that does not answer within
    ``RAY_CONNECT_TIMEOUT`` seconds raises :class:`ClusterUnreachable` before anything runs.
    """
    from daft import runners

    want = "native" if ray_address is None else "ray"
    if ray_address is not None:
        _check_ray_address(ray_address)
    current: Any = runners._get_runner()
    if current is not None:
        have = getattr(current, "name", want)
        if have != want:
            raise ConfigError(
                f"Daft's runner in this process is already {have!r}; it is fixed once per "
                f"process, so run 'webdedup daft' for the {want} runner in a new process"
            )
        return want
    if ray_address is None:
        runners.set_runner_native()
        return want
    try:
        runners.set_runner_ray(address=None if ray_address == "local" else ray_address)
    except Exception as exc:  # Ray raises ConnectionError, RuntimeError... with its own text
        raise ClusterUnreachable(
            f"could not connect to the Ray cluster at {ray_address!r}: {exc}. Start one "
            "(ray start --head) or give its address (HOST:PORT or ray://HOST:PORT)"
        ) from exc
    return want


def _check_ray_address(address: str) -> None:
    """Fail fast, with a clear message, when a ``HOST:PORT`` address does not answer, or
    answers but not as a Ray head does (Ray itself would wait minutes for it)."""
    if address in ("auto", "local"):
        return
    hostport = address.split("://", 1)[1] if "://" in address else address
    host, sep, port = hostport.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ConfigError(
            f"--ray-address takes auto, HOST:PORT or ray://HOST:PORT, got {address!r}"
        )
    advice = (
        "nothing was written. Check the address (ray status on the head prints it) or run "
        "without --ray-address on this machine"
    )
    deadline = time.monotonic() + RAY_CONNECT_TIMEOUT
    try:
        sock = socket.create_connection((host, int(port)), timeout=RAY_CONNECT_TIMEOUT)
    except OSError as exc:
        raise ClusterUnreachable(
            f"no Ray cluster answers at {address!r} ({exc.strerror or exc}) within "
            f"{RAY_CONNECT_TIMEOUT:g} s; {advice}"
        ) from exc
    with sock:
        if os.environ.get("RAY_USE_TLS", "0").lower() in ("1", "true"):
            return  # the handshake below is plaintext HTTP/2; TLS heads are left to Ray
        try:
            reply = _http2_hello(sock, deadline)
        except TimeoutError as exc:
            raise ClusterUnreachable(
                f"something at {address!r} accepted the connection but did not answer as a "
                f"Ray head (gRPC) within {RAY_CONNECT_TIMEOUT:g} s; {advice}"
            ) from exc
        except OSError:
            reply = b""  # reset or broken pipe: it hung up on a gRPC hello
    if len(reply) < 9 or reply[3] != HTTP2_SETTINGS:
        heard = f"it answered {reply[:20]!r}" if reply else "it hung up"
        raise ClusterUnreachable(
            f"something listens at {address!r} but it is not a Ray cluster (a Ray head speaks "
            f"gRPC; {heard}); {advice}"
        )


def _http2_hello(sock: socket.socket, deadline: float) -> bytes:
    """The first 9 bytes (a frame header) the server at ``sock`` answers to HTTP/2's preface
    (fewer if it hangs up); ``TimeoutError`` when it says nothing before ``deadline``."""
    sock.sendall(HTTP2_PREFACE)
    reply = b""
    while len(reply) < 9:
        sock.settimeout(max(0.001, deadline - time.monotonic()))
        more = sock.recv(9 - len(reply))
        if not more:
            break
        reply += more
    return reply


# -- input --------------------------------------------------------------------------------------
def read_pages(
    inputs: Sequence[str], config: Config, io_config: Any = None
) -> tuple[Any, list[str]]:
    """The pages of the Parquet ``inputs`` as ``id, url, content, html, datetime, crawled,
    category, lang, pin_rank, not_duplicate_of`` (absent columns are NULL), and the input's
    column names.

    The column mapping is the database's (``Columns``: ``content=body``...); ``id`` names
    each page (an integer, unique over all files). The verdict columns keep the names
    ``webdedup export --parquet`` gives them (``canonical_rank``, ``not_duplicate_of``).
    """
    import daft
    from daft import DataType as DT
    from daft import col, lit

    paths = list(inputs)
    if not paths:
        raise InputError("no input: give Parquet files or a glob such as 'pages/*.parquet'")
    try:
        df = daft.read_parquet(paths, io_config=io_config, file_path_column=_FILE)
        names = [n for n in df.column_names if n != _FILE]
    except FileNotFoundError as exc:
        raise InputError(f"no Parquet file matches {', '.join(paths)}: {exc}") from exc
    except Exception as exc:  # Daft's own errors for unreadable files
        if "not found" in str(exc).lower() or "no such file" in str(exc).lower():
            raise InputError(f"no Parquet file matches {', '.join(paths)}") from exc
        raise InputError(f"cannot read {', '.join(paths)} as Parquet: {exc}") from exc
    columns = config.columns
    present = set(names)
    missing = []
    if ID_COLUMN not in present:
        missing.append(f"the page id column {ID_COLUMN!r}")
    if columns.url not in present:
        missing.append(f"the URL column {columns.url!r} (map it with --column url=NAME)")
    if columns.content not in present and columns.html not in present:
        missing.append(
            f"a text column {columns.content!r} or HTML column {columns.html!r} "
            "(map it with --column content=NAME)"
        )
    if missing:
        raise MissingColumn(
            f"the Parquet input has no {'; no '.join(missing)}; columns found: "
            f"{', '.join(names) or 'none'}"
        )

    def pick(*candidates: str, dtype: Any = None) -> Any:
        for name in candidates:
            if name in present:
                return col(name) if dtype is None else col(name).cast(dtype)
        return lit(None).cast(DT.string() if dtype is None else dtype)

    df = df.select(
        col(ID_COLUMN).cast(DT.int64()).alias("id"),
        col(columns.url).alias("url"),
        pick(columns.content).alias("content"),
        pick(columns.html).alias("html"),
        pick(columns.datetime, columns.date).alias("datetime"),
        pick(columns.crawled).alias("crawled"),
        pick(columns.category).alias("category"),
        pick(columns.lang).alias("lang"),
        pick("canonical_rank", dtype=DT.int64()).alias("pin_rank"),
        pick("not_duplicate_of", dtype=DT.list(DT.int64())).alias("not_duplicate_of"),
        col(_FILE),
    )
    return df, names


def check_ids(pages: Any) -> int:
    """The number of pages; raise when there are none or an id repeats (naming its files)."""
    from daft import col, lit

    total = int(pages.count_rows())
    if total == 0:
        raise InputError("the Parquet input has no pages (0 rows): nothing to deduplicate")
    no_id = int(pages.where(col("id").is_null()).count_rows())
    if no_id:
        raise InputError(
            f"{no_id:,} page(s) of the Parquet input have no integer {ID_COLUMN!r} (null, or "
            "text that is not a number); every page needs an integer id"
        )
    repeats = (
        pages.groupby("id")
        .agg(col("id").count().alias("n"), col(_FILE).list_agg_distinct().alias("files"))
        .where(col("n") > lit(1))
        .limit(5)
        .to_pylist()
    )
    if repeats:
        shown = "; ".join(
            f"id {r['id']} ({r['n']} times, in {', '.join(sorted(r['files']))})" for r in repeats
        )
        raise InputError(
            f"page ids repeat in the Parquet input: {shown}. Each page needs its own id over "
            "all files (a crawler's shards must number their pages apart)"
        )
    return total


@dataclass(frozen=True)
class Verdicts:
    """The reviewers' verdicts carried by the input (``store.verdicts``' pure forms)."""

    pins: dict[int, int]  #: ``pin_ranks``: page chosen as canonical -> rank (0: latest)
    cannot_link: set[tuple[int, int]]  #: ``cannot_links``: (smaller id, larger id)

    def as_json(self) -> dict[str, Any]:
        return {
            "pins": sorted([pid, rank] for pid, rank in self.pins.items()),
            "cannot_link": sorted([a, b] for a, b in self.cannot_link),
        }


def read_verdicts(pages: Any) -> Verdicts:
    """The verdicts on the pages of ``read_pages`` (a handful: people make them)."""
    from daft import col

    rows = (
        pages.where(col("pin_rank").not_null() | col("not_duplicate_of").not_null())
        .select("id", "pin_rank", "not_duplicate_of")
        .to_pylist()
    )
    pins = {int(r["id"]): int(r["pin_rank"]) for r in rows if r["pin_rank"] is not None}
    apart = {
        (min(int(r["id"]), int(o)), max(int(r["id"]), int(o)))
        for r in rows
        for o in r["not_duplicate_of"] or ()
        if o is not None and int(o) != int(r["id"])
    }
    return Verdicts(pins, apart)


def _value(v: Any) -> Any:
    """A Parquet cell as the SQLite path reads it: timestamps as ISO text, BLOBs as text."""
    if isinstance(v, (datetime, date)):
        return v.isoformat()
    return as_text(v)


def _page(row: Sequence[Any]) -> PageInput:
    pid, url, content, html, dt, crawled, category, lang = row
    return PageInput(
        int(pid), as_text(url), as_text(content), html, _value(dt), _value(crawled),
        as_text(category), as_text(lang),
    )


# -- phase 1 ------------------------------------------------------------------------------------
_PREPARED_TYPES = {
    "id": "int64", "url_hash": "string", "canonical_url": "string", "url_key": "string",
    "host": "string", "content_hash": "string", "text_len": "int64", "word_count": "int64",
    "is_external": "int64", "is_https": "int64", "url_len": "int64", "dt": "float64",
    "crawled_ts": "float64", "ignored": "string", "lang": "string", "lang_score": "float64",
}


def _prepare_udf(config: Config, spec: NearSpec) -> Any:
    import daft
    import pyarrow as pa
    from daft import DataType as DT

    job = PrepareJob(config, spec)
    fields = [(name, getattr(pa, kind)()) for name, kind in _PREPARED_TYPES.items()]
    fields += [("sketch", pa.binary()), ("band_keys", pa.list_(pa.int64()))]
    arrow_type = pa.struct(fields)
    dtype = DT.from_arrow_type(arrow_type)

    @daft.func.batch(return_dtype=dtype, unnest=True)
    def prepare(*series: Any) -> Any:
        rows = zip(*(s.to_pylist() for s in series), strict=True)
        out = []
        for row, sketch, _ in prepare_batch(job, [_page(r) for r in rows]):
            record = row._asdict()
            record["sketch"] = sketch[0] if sketch is not None else None
            record["band_keys"] = sketch[1] if sketch is not None else None
            out.append(record)
        return pa.array(out, type=arrow_type)

    return prepare


# -- elections ----------------------------------------------------------------------------------
def election_window(partition: str, keys: Sequence[str], pinned: bool = False) -> Any:
    """The window ``PARTITION BY partition ORDER BY <election>``, built from the keys of
    :data:`~webdedup.algorithms.election.ELECTION_KEYS` as ``order_by_sql`` builds the SQL
    one; ``pinned``: the pages reviewers chose as canonical first, by ``pin_rank``
    (``RunContext.election_sql``)."""
    from daft import Window, col

    exprs: list[Any] = []
    desc: list[bool] = []

    def nulls_last_then(column: str, descending: bool) -> None:
        exprs.extend([col(column).is_null(), col(column)])
        desc.extend([False, descending])

    if pinned:
        nulls_last_then("pin_rank", False)

    for key in validate_election(keys):
        rule = ELECTION_KEYS[key]
        if rule.nullable:
            nulls_last_then(rule.column, rule.descending)
        else:
            exprs.append(col(rule.column))
            desc.append(rule.descending)
    return Window().partition_by(partition).order_by(*exprs, desc=desc)


def _elect(
    df: Any, partition: str, keys: Sequence[str], rank: str, winner: str, pinned: bool = False
) -> Any:
    """``id, <rank>, <winner>`` of each row of ``df``: its rank in its partition and the
    partition's first row by the election order (reviewers' choices first when ``pinned``)."""
    from daft import col
    from daft.functions import row_number

    window = election_window(partition, keys, pinned)
    ranked = df.with_column(rank, row_number().over(window))
    winners = ranked.where(col(rank) == 1).select(
        col(partition).alias("_p"), col("id").alias(winner)
    )
    return ranked.join(winners, left_on=partition, right_on="_p").select("id", rank, winner)


# -- phase 4 ------------------------------------------------------------------------------------
def _verify_udf(spec: NearSpec) -> Any:
    import daft
    from daft import DataType as DT

    @daft.func.batch(return_dtype=DT.float64())
    def verify(a: Any, b: Any, ca: Any, ha: Any, cb: Any, hb: Any) -> list[float]:
        pairs = list(zip(a.to_pylist(), b.to_pylist(), strict=True))
        pages: dict[int, PageInput] = {}
        for ids, contents, htmls in ((a, ca, ha), (b, cb, hb)):
            for pid, content, html in zip(
                ids.to_pylist(), contents.to_pylist(), htmls.to_pylist(), strict=True
            ):
                pages[pid] = PageInput(pid, None, as_text(content), html)
        scores = verify_chunk(spec, pages, pairs)
        return [scores[p] for p in pairs]

    return verify


def _cluster_udf(spec: NearSpec, config: Config, apart: set[tuple[int, int]]) -> Any:
    """Per connected component of exact groups: ``group_near`` with the election order
    (reviewers' chosen canonicals first) and the cannot-link pairs of exact groups ``apart``
    (:func:`~webdedup.algorithms.cluster.groups_apart`; a handful, sent with the UDF)."""
    import daft
    import pyarrow as pa
    from daft import DataType as DT

    arrow_type = pa.list_(
        pa.struct([("id", pa.int64()), ("center", pa.int64()), ("score", pa.float64())])
    )
    election = sort_key(config.election)

    def order_key(row: Any) -> tuple[Any, ...]:
        pinned = (row.pin_rank is None, row.pin_rank or 0)  # coalesce(pin_rank, n) ASC
        return pinned + election(row)

    @daft.func(return_dtype=DT.from_arrow_type(arrow_type))
    def cluster(members: list[dict[str, Any]], edges: list[dict[str, Any]]) -> list[dict[str, Any]]:
        rows = {m["id"]: _Row(m) for m in members}
        order = [r.id for r in sorted(rows.values(), key=order_key)]
        group_edges = {(e["a"], e["b"]): e["score"] for e in edges}
        texts: dict[int, str] = {}

        def text(pid: int) -> str:
            if pid not in texts:
                m = rows[pid].raw
                page = PageInput(pid, None, as_text(m["content"]), m["html"])
                texts[pid] = page_digest(page).sketch
            return texts[pid]

        def score_of(a: int, b: int) -> float:
            return text_similarity(spec, text(a), text(b))

        here = [(a, b) for a, b in apart if a in rows and b in rows]
        assigned = group_near(order, group_edges, score_of, config.chain_floor, here)
        return [{"id": k, "center": c, "score": s} for k, (c, s) in sorted(assigned.items())]

    return cluster


class _Row:
    """A member of a component with the attributes the election keys read."""

    id: int
    is_external: int
    dt: float | None
    crawled_ts: float | None
    text_len: int
    is_https: int
    url_len: int
    pin_rank: int | None
    raw: dict[str, Any]

    __slots__ = ("id", "is_external", "dt", "crawled_ts", "text_len", "is_https", "url_len",
                 "pin_rank", "raw")

    def __init__(self, m: dict[str, Any]) -> None:
        self.raw = m
        for name in self.__slots__[:-1]:
            setattr(self, name, m[name])


def _same_language(edges: Any, prepared: Any) -> Any:
    """The language guard of phase 4 (``pipeline.language_guard.keep_same_language``): the
    edges whose two pages are not surely in different languages."""
    import daft
    from daft import DataType as DT
    from daft import col

    @daft.func.batch(return_dtype=DT.bool())
    def same(la: Any, sa: Any, lb: Any, sb: Any) -> list[bool]:  # NULLs in, as the guard reads
        rows = zip(*(s.to_pylist() for s in (la, sa, lb, sb)), strict=True)
        return [not different_languages(*row) for row in rows]

    langs = prepared.select("id", "lang", "lang_score")
    la = langs.select(col("id").alias("a"), col("lang").alias("_la"),
                      col("lang_score").alias("_sa"))
    lb = langs.select(col("id").alias("b"), col("lang").alias("_lb"),
                      col("lang_score").alias("_sb"))
    return (
        edges.join(la, on="a")
        .join(lb, on="b")
        .where(same(col("_la"), col("_sa"), col("_lb"), col("_sb")))
        .exclude("_la", "_sa", "_lb", "_sb")
    )


# -- the run ------------------------------------------------------------------------------------
def run_daft(
    inputs: Sequence[str],
    out: str | Path,
    config: Config,
    *,
    ray_address: str | None = None,
    io_config: Any = None,
    store: ObjectStore | None = None,
    on_message: Callable[[str], None] | None = None,
) -> DaftResult:
    """Deduplicate the Parquet pages of ``inputs`` on Daft and write the result to ``out``.

    ``out`` is a new directory: ``pages/`` (one row a page: webdedup's state and annotation
    columns), ``edges/``, ``verified/`` (Parquet) and a manifest. A local one appears only
    when the run succeeded; an ``s3://`` one gets its manifest last (:mod:`.objectstore`).
    ``store``: how to reach ``s3://`` inputs and output (default: the AWS environment);
    ``io_config``: a Daft ``IOConfig`` of one's own instead, for the inputs only.
    """
    import daft

    if config.method not in SUPPORTED_METHODS:
        raise ConfigError(
            f"webdedup daft runs method {', '.join(SUPPORTED_METHODS)} only, not "
            f"{config.method!r}; run 'webdedup db' for {config.method}"
        )
    # own content (pipeline.own_content) is not on Daft yet: it compares whole texts, and says
    # so in its fingerprint, so 'db --assignments' takes its results only with --whole-text
    config = replace(config, own_content=False)
    remote = is_remote(str(out))
    if remote or any(is_remote(i) for i in inputs):
        store = store or ObjectStore.from_options()
        io_config = io_config or store.io_config()
    target: Path | _Remote = _Remote(str(out), store) if remote and store else Path(out)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise InputError(
            f"{out} already exists and is not empty; give a new directory for --out "
            "(or remove the old one)"
        )
    if isinstance(target, Path):
        _check_writable(target)
    t0 = time.perf_counter()
    runner = use_runner(ray_address)
    run = _Run(config, config.near_spec())
    with run.phase("read"):
        pages, _names = read_pages(inputs, config, io_config)
        total = check_ids(pages)
        run.verdicts = read_verdicts(pages)
    if on_message is not None:
        on_message(f"Daft ({runner} runner): {total:,} pages")
    # Daft's default of 200 partitions a shuffle costs more than it saves below millions of
    # pages (each partition is a task on Ray)
    daft.set_execution_config(
        shuffle_aggregation_default_partitions=max(1, min(200, total // PAGES_PER_PARTITION))
    )
    run.texts = pages.select("id", "content", "html")
    with run.phase("prepare"):
        run.prepare(pages)
    with run.phase("elect_url"):
        run.elect_urls()
    with run.phase("elect_exact"):
        run.elect_exact()
    with run.phase("candidates"):
        candidates = run.candidates()
    with run.phase("verify"):
        edges = run.verify()
    with run.phase("cluster"):
        run.cluster()
    with run.phase("assign"):
        result = run.assign()
    with run.phase("write"):
        res = DaftResult(
            out=str(target),
            runner=runner,
            pages=total,
            candidates=candidates,
            edges=edges,
            wall_seconds=0.0,
            timings=run.timings,
            **_counts(result),
        )
        _write(run, result, target, list(inputs), res, t0)
    res.wall_seconds = round(time.perf_counter() - t0, 4)
    return res


class _Run:
    """The dataframes of one run, phase by phase (each method is one phase of ``db``)."""

    def __init__(self, config: Config, spec: NearSpec) -> None:
        self.config, self.spec = config, spec
        self.timings: dict[str, float] = {}
        self.texts: Any = None  # id, content, html: read again where verification needs them
        self.prepared: Any = None
        self.active: Any = None
        self.url_el: Any = None
        self.exact_el: Any = None
        self.page_group: Any = None
        self.nodes: Any = None
        self.scored: Any = None
        self.edges: Any = None
        self.near: Any = None
        self.verdicts = Verdicts({}, set())

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.timings[name] = round(time.perf_counter() - start, 4)

    def prepare(self, pages: Any) -> None:
        """Phase 1, and the ``n_min`` filter (``sql/small_hosts.sql``)."""
        from daft import col, lit
        from daft.functions import when

        prep = _prepare_udf(self.config, self.spec)
        inputs = ("id", "url", "content", "html", "datetime", "crawled", "category", "lang")
        prepared = pages.select(
            col("id").alias("_id"), col("pin_rank"), prep(*map(col, inputs))
        ).exclude("_id")
        if self.config.n_min > 0:
            small = (
                prepared.where(col("host").not_null())
                .groupby("host")
                .agg(col("id").count().alias("_n"))
                .where(col("_n") < lit(self.config.n_min))
                .select(col("host").alias("_small"))
            )
            prepared = prepared.join(small, left_on="host", right_on="_small", how="left")
            small_host = col("ignored").is_null() & col("_small").not_null()
            prepared = prepared.with_column(
                "ignored", when(small_host, "small_host").otherwise(col("ignored"))
            ).exclude("_small")
        self.prepared = prepared.collect()
        self.active = self.prepared.where(col("ignored").is_null()).select(
            "id", "url_key", "content_hash", "word_count", *_MEMBER[1:]
        )

    def elect_urls(self) -> None:
        """Phase 2 (``sql/elect_url.sql``)."""
        election = self.config.election
        pinned = bool(self.verdicts.pins)
        self.url_el = _elect(
            self.active, "url_key", election, "url_rank", "url_winner", pinned
        ).collect()

    def elect_exact(self) -> None:
        """Phase 3: URL groups linked by shared texts (``sql/exact_links.sql``), their
        connected components, the election in each (``sql/elect_exact.sql``)."""
        from daft import col, lit

        links = (
            self.active.join(self.url_el.select("id", "url_winner"), on="id")
            .where(
                (col("url_winner") == col("id")) | (col("word_count") >= lit(self.config.min_words))
            )
            .select("content_hash", col("url_winner").alias("w"))
            .distinct()
        )
        roots = links.groupby("content_hash").agg(col("w").min().alias("root"))
        link_edges = (
            links.join(roots, on="content_hash")
            .where(col("w") != col("root"))
            .select(col("root").alias("u"), col("w").alias("v"))
        )
        components = connected_components(link_edges).select(
            col("node").alias("id"), "component"
        )
        url_winners = self.url_el.where(col("url_winner") == col("id")).select("id")
        winners = (
            self.active.join(url_winners, on="id")
            .join(components, on="id", how="left")
            .with_column("component", col("component").fill_null(col("id")))
        )
        self.exact_el = _elect(
            winners, "component", self.config.election, "exact_rank", "exact_winner",
            bool(self.verdicts.pins),
        ).collect()
        self.page_group = self.url_el.select("id", "url_winner").join(
            self.exact_el.select(col("id").alias("url_winner"), "exact_winner"), on="url_winner"
        )

    def candidates(self) -> int:
        """Phase 4's nodes (``sql/near_nodes.sql``) and their candidate pairs: band keys
        exploded and self-joined (as ``algorithms.bands.candidate_pairs`` pairs them)."""
        from daft import col, lit

        self.nodes = (
            self.active.where(col("word_count") >= lit(self.spec.min_words))
            .join(self.page_group, on="id")
            .groupby("exact_winner", "content_hash")
            .agg(col("id").min().alias("id"))
            .select("id", col("exact_winner").alias("component"))
            .collect()
        )
        bands = (
            self.prepared.select("id", "band_keys")
            .join(self.nodes, on="id")
            .explode("band_keys")
            .select(col("band_keys").alias("band_key"), "id", "component")
        )
        counted = bands.groupby("band_key").agg(col("id").count().alias("_n"))
        shared = counted.where(col("_n") > lit(1))
        nb = bands.join(shared.select("band_key"), on="band_key")
        x = nb.select("band_key", col("id").alias("a"), col("component").alias("ca"))
        y = nb.select(
            col("band_key").alias("_k"), col("id").alias("b"), col("component").alias("cb")
        )
        self.pairs = (
            x.join(y, left_on="band_key", right_on="_k")
            .where((col("b") > col("a")) & (col("cb") != col("ca")))
            .select("a", "b", "ca", "cb")
            .distinct()
            .collect()
        )
        return int(self.pairs.count_rows())

    def verify(self) -> int:
        """Each candidate verified on its texts (``phase4_near.verify_chunk``); the edges."""
        from daft import col, lit

        t = self.texts
        ta = t.select(col("id").alias("a"), col("content").alias("_ca"), col("html").alias("_ha"))
        tb = t.select(col("id").alias("b"), col("content").alias("_cb"), col("html").alias("_hb"))
        hashes = self.prepared.select("id", "content_hash")
        verify = _verify_udf(self.spec)
        self.scored = (
            self.pairs.join(ta, on="a")
            .join(tb, on="b")
            .into_batches(VERIFY_BATCH)
            .with_column(
                "score",
                verify(col("a"), col("b"), col("_ca"), col("_ha"), col("_cb"), col("_hb")),
            )
            .select("a", "b", "ca", "cb", "score")
            .join(hashes.select(col("id").alias("a"), col("content_hash").alias("_xa")), on="a")
            .join(hashes.select(col("id").alias("b"), col("content_hash").alias("_xb")), on="b")
            .collect()
        )
        verified = self.scored.where(col("score") >= lit(self.spec.threshold))
        self.edges = _same_language(verified, self.prepared).collect()
        return int(self.edges.count_rows())

    def groups_apart(self) -> set[tuple[int, int]]:
        """The cannot-link pairs as pairs of exact groups (``phase4_near._groups_apart``)."""
        from daft import col

        if not self.verdicts.cannot_link:
            return set()
        pages = sorted({x for pair in self.verdicts.cannot_link for x in pair})
        rows = self.page_group.where(col("id").is_in(pages)).to_pylist()
        winner = {int(r["id"]): int(r["exact_winner"]) for r in rows}
        return groups_apart(self.verdicts.cannot_link, winner)

    def cluster(self) -> None:
        """Edges lifted to exact groups (``cluster.component_edges``), less the reviewers'
        cannot-links (``cluster.drop_cannot_links``), their connected components, and
        ``group_near`` in each."""
        import daft
        import pyarrow as pa
        from daft import col
        from daft.functions import to_struct, when

        lo = when(col("ca") < col("cb"), col("ca")).otherwise(col("cb"))
        hi = when(col("ca") < col("cb"), col("cb")).otherwise(col("ca"))
        group_edges = (
            self.edges.select(lo.alias("a"), hi.alias("b"), "score")
            .groupby("a", "b")
            .agg(col("score").max().alias("score"))
            .collect()
        )
        apart = self.groups_apart()
        if apart:  # reviewers' "not a duplicate", before the components (as db does)
            kept = drop_cannot_links(
                {(r["a"], r["b"]): r["score"] for r in group_edges.to_pylist()}, apart
            )
            group_edges = daft.from_pydict(
                {
                    "a": pa.array([a for a, _ in kept], pa.int64()),
                    "b": pa.array([b for _, b in kept], pa.int64()),
                    "score": pa.array(list(kept.values()), pa.float64()),
                }
            )
        components = connected_components(
            group_edges.select(col("a").alias("u"), col("b").alias("v"))
        ).collect()
        member = to_struct(*(col(c) for c in (*_MEMBER, "content", "html")))
        members = (
            components.select(col("node").alias("id"), "component")
            .join(self.prepared.select(*_MEMBER), on="id")
            .join(self.texts, on="id")
            .select("component", member.alias("m"))
            .groupby("component")
            .agg(col("m").list_agg().alias("members"))
        )
        comp_edges = (
            group_edges.join(components.select(col("node").alias("a"), "component"), on="a")
            .select("component", to_struct(col("a"), col("b"), col("score")).alias("e"))
            .groupby("component")
            .agg(col("e").list_agg().alias("edges"))
        )
        cluster = _cluster_udf(self.spec, self.config, apart)
        self.near = (
            members.join(comp_edges, on="component")
            .select(cluster(col("members"), col("edges")).alias("r"))
            .explode("r")
            .where(col("r").not_null())
            .select(
                col("r")["id"].alias("id"),
                col("r")["center"].alias("near_center"),
                col("r")["score"].alias("near_score"),
            )
            .collect()
        )

    def assign(self) -> Any:
        """Every page's group, canonical and kind (``sql/assign.sql``), and
        ``exact_group_size`` (``sql/write_prepare.sql``)."""
        from daft import col
        from daft.functions import when

        near = self.near.select(col("id").alias("exact_winner"), "near_center", "near_score")
        base = self.page_group.join(near, on="exact_winner", how="left").with_column(
            "canonical_id", col("near_center").fill_null(col("exact_winner"))
        )
        per_group = base.groupby("canonical_id").agg(
            col("id").min().alias("dup_group"), col("id").count().alias("dup_group_size")
        )
        per_text = self.active.groupby("content_hash").agg(
            col("id").count().alias("exact_group_size")
        )
        assigned = base.join(per_group, on="canonical_id").with_columns(
            {
                "is_canonical": (col("id") == col("canonical_id")).cast("int64"),
                "dup_kind": when(col("id") == col("canonical_id"), None)
                .when(col("id") != col("url_winner"), "url")
                .when(col("id") != col("exact_winner"), "exact")
                .otherwise("near"),
                "dup_score": when(col("exact_winner") == col("canonical_id"), 1.0).otherwise(
                    col("near_score").fill_null(1.0)
                ),
            }
        )
        ignored = col("ignored").not_null()
        return (
            self.prepared.join(assigned, on="id", how="left")
            .join(self.url_el.select("id", "url_rank"), on="id", how="left")
            .join(self.exact_el.select("id", "exact_rank"), on="id", how="left")
            .join(per_text, on="content_hash", how="left")
            .with_columns(
                {
                    "dup_kind": when(ignored, "ignored").otherwise(col("dup_kind")),
                    "exact_group_size": when(~ignored, col("exact_group_size")),
                }
            )
            .select(*PAGE_COLUMNS)
            .sort("id")
            .collect()
        )


#: The election attributes of a page (``algorithms.election.Electable``), and the rank of a
#: reviewer's choice as canonical (NULL for most pages).
_MEMBER = ("id", "is_external", "dt", "crawled_ts", "text_len", "is_https", "url_len",
           "pin_rank")
#: The columns of the output's ``pages/`` files.
PAGE_COLUMNS = (
    *_PREPARED_TYPES, "sketch", "band_keys", "url_rank", "url_winner", "exact_rank",
    "exact_winner", "near_center", "near_score", "exact_group_size", "dup_group",
    "dup_group_size", "canonical_id", "is_canonical", "dup_kind", "dup_score",
)


class _Remote:
    """An ``s3://`` output directory (the few calls ``run_daft`` makes on a local one)."""

    def __init__(self, url: str, store: ObjectStore) -> None:
        self.url, self.store = url.rstrip("/"), store
        self.fs = store.filesystem()
        self.path = bucket_path(url)

    def __str__(self) -> str:
        return self.url

    def exists(self) -> bool:
        from pyarrow import fs

        return bool(self.fs.get_file_info(self.path).type != fs.FileType.NotFound)

    def is_dir(self) -> bool:
        from pyarrow import fs

        return bool(self.fs.get_file_info(self.path).type != fs.FileType.File)

    def iterdir(self) -> Iterator[str]:
        from pyarrow import fs

        selector = fs.FileSelector(self.path, allow_not_found=True)
        return iter(info.path for info in self.fs.get_file_info(selector))


def _write(
    run: _Run, result: Any, target: Path | _Remote, inputs: list[str], res: DaftResult,
    t0: float,
) -> None:
    """Write into a fresh directory beside ``target``, renamed to it when complete (on object
    storage: straight into ``target``, the manifest last, all removed on failure)."""
    if isinstance(target, _Remote):
        io_config = target.store.io_config()
        try:
            _write_parts(run, result, target.url, inputs, res, t0, io_config, target.fs)
        except BaseException:
            target.fs.delete_dir_contents(target.path, missing_dir_ok=True)
            raise
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        _write_parts(run, result, str(work), inputs, res, t0, None, None)
        if target.exists():
            target.rmdir()  # empty (checked before the run)
        work.rename(target)
    except BaseException as exc:
        shutil.rmtree(work, ignore_errors=True)
        if _no_space(exc):  # Daft's writers say it in their own exception
            raise DiskFull(
                f"--out {target}: no space left on its disk while writing the result (removed "
                "again); free some space or give a folder on another disk, then run again"
            ) from exc
        raise


def _no_space(exc: BaseException | None) -> bool:
    """``ENOSPC`` somewhere in ``exc``'s chain, as an OSError or in Daft's (Rust's) words."""
    while exc is not None:
        if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
            return True
        if "No space left on device" in str(exc):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def _check_writable(target: Path) -> None:
    """Fail before the run, not after it, when ``--out`` can't be written (a read-only file
    system, no permission, a full disk): make its parent and a scratch folder beside it."""
    folder = target.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=folder)).rmdir()
    except OSError as exc:
        if exc.errno == errno.ENOSPC:
            raise DiskFull(
                f"--out {target}: no space left on its disk; free some space or give a folder "
                "on another disk"
            ) from exc
        where = exc.filename if exc.filename and not folder.is_dir() else folder
        raise ReadOnlyOutput(
            f"--out {target} can't be written ({where}: {exc.strerror or exc}); give a "
            "folder on a writable file system"
        ) from exc


def _write_parts(
    run: _Run, result: Any, where: str, inputs: list[str], res: DaftResult, t0: float,
    io_config: Any, filesystem: Any,
) -> None:
    """The output's Parquet parts and, last, its manifest (into ``where``)."""
    from daft import col
    from daft.functions import when

    result.write_parquet(f"{where}/pages", io_config=io_config)
    run.edges.select("a", "b", "score").sort(["a", "b"]).write_parquet(
        f"{where}/edges", io_config=io_config
    )
    lo = when(col("_xa") < col("_xb"), col("_xa")).otherwise(col("_xb"))
    hi = when(col("_xa") < col("_xb"), col("_xb")).otherwise(col("_xa"))
    verified = run.scored.select(lo.alias("hash_a"), hi.alias("hash_b"), "score").distinct()
    verified.sort(["hash_a", "hash_b"]).write_parquet(
        f"{where}/verified", io_config=io_config
    )
    res.wall_seconds = round(time.perf_counter() - t0, 4)
    manifest = {
        "format": MANIFEST_FORMAT,
        "version": MANIFEST_VERSION,
        "webdedup_version": __version__,
        "method": run.config.method,
        "scheme": run.spec.scheme,
        "fingerprint": run.config.fingerprint(),
        "shaping": run.config.shaping_parameters(),
        "config": asdict(run.config),
        "inputs": inputs,
        "verdicts": run.verdicts.as_json(),
        "result": asdict(res),
    }
    text = json.dumps(manifest, indent=2, default=list) + "\n"
    if filesystem is None:
        Path(where, MANIFEST).write_text(text)
    else:
        with filesystem.open_output_stream(f"{bucket_path(where)}/{MANIFEST}") as f:
            f.write(text.encode())


def _counts(result: Any) -> dict[str, int]:
    from daft import col

    rows = result.groupby("dup_kind").agg(col("id").count().alias("n")).to_pylist()
    by_kind = {r["dup_kind"]: int(r["n"]) for r in rows}
    # a group has a duplicate, as sql/group_kinds.sql defines it (a page alone is unique)
    duplicates = col("dup_kind").is_in(["url", "exact", "near"])
    groups = result.where(duplicates).select("dup_group").distinct()
    return {
        "ignored": by_kind.get("ignored", 0),
        "url_duplicates": by_kind.get("url", 0),
        "exact_duplicates": by_kind.get("exact", 0),
        "near_duplicates": by_kind.get("near", 0),
        "groups": int(groups.count_rows()),
    }


__all__ = [
    "PAGE_COLUMNS",
    "DaftResult",
    "Verdicts",
    "check_ids",
    "read_pages",
    "read_verdicts",
    "run_daft",
    "use_runner",
]
