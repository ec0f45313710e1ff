"""The phases of ``webdedup db`` as Daft dataframe operations (``webdedup daft``): the run.

The rules are webdedup's own, called, not rewritten: phase 1 is a batch UDF around
:func:`~webdedup.pipeline.phase1_prepare.prepare_batch` (URL canonicalization, normalized-text
hash, MinHash signature and LSH band keys: bit-identical to the SQLite path), verification a
batch UDF around :func:`~webdedup.pipeline.phase4_near.verify_chunk`, and the no-chaining star
rule :func:`~webdedup.algorithms.cluster.group_near` runs per connected component. Between
them, the dataframe does what SQL does on one machine:

1. prepare: one UDF over the pages (the ``n_min`` filter is a group-by on hosts);
2. URL election: each URL key's pages ranked in the election order (:mod:`.elections`: what
   ``row_number() OVER (PARTITION BY url_key ORDER BY <election>)`` gives);
3. exact election: URL groups sharing a content hash are linked, their connected components
   (:mod:`.components`) elected over in the same way;
4. near-duplicates: band keys exploded and self-joined into candidate pairs of different
   exact groups, verified in batches, lifted to exact groups, split into connected components,
   each clustered by ``group_near`` with the election order;
5. the assignment (group, canonical, ``dup_kind``, score) per page, written as Parquet with
   everything ``webdedup db --assignments`` stores for the next incremental run.

The reviewers' verdicts travel in the input's ``canonical_rank`` and ``not_duplicate_of``
columns (``webdedup export --parquet`` writes them) and are honoured as ``webdedup db``
honours them: chosen canonicals first in all three elections, "not a duplicate" pairs lifted to
exact groups (:func:`~webdedup.algorithms.cluster.groups_apart`), dropped from the group
edges (as :func:`~webdedup.algorithms.cluster.group_pairs` drops them) and kept apart by
``group_near``. The language guard
(:func:`~webdedup.algorithms.language.different_languages`) drops verified edges between
pages surely in different languages, before they are stored and clustered.

No table of the crawl is held in memory: each phase's result is written as Parquet under the
output's ``_scratch/`` and read back lazily, and each step that needs all rows of a key at once
runs a part of the keys at a time (:mod:`.scratch`, :data:`PAGES_PER_PART`), so the run's
memory is that of a part. The reviewers' "not a duplicate" pairs are a table joined to the
edges and components, not a set sent with a UDF.

Only ``method = "minhash"`` runs here; the others are refused with a message.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from ..algorithms.sketch import NearSpec
from ..config import Config
from ..errors import ConfigError, InputError
from ..store.verdicts import Verdicts
from ..version import __version__
from .components import connected_components
from .elections import elect
from .objectstore import ObjectStore, is_remote
from .reading import check_ids, read_pages, read_verdicts
from .runner import use_runner
from .scratch import Scratch
from .udfs import (
    MEMBER,
    PREPARED_TYPES,
    apart_type,
    cluster_udf,
    prepare_udf,
    same_language,
    verify_udf,
)
from .writing import RemoteDir, check_writable, write_output

#: Methods this path runs (the others need the SQLite path for now).
SUPPORTED_METHODS = ("minhash",)
#: Candidate pairs handed to one verification UDF call.
VERIFY_BATCH = 1_000
#: Pages a part of the run is sized for (:mod:`.scratch`): each step that needs all rows of a
#: key at once (a window, a group-by, a join, the texts of verification) runs once a part, so
#: its memory is that of this many pages, not of the crawl.
PAGES_PER_PART = 100_000
#: Band-key rows (a node's band keys, one a band) a candidate step self-joins at a time: a
#: range of bands of all nodes.
BAND_ROWS_PER_PART = 1_000_000
#: Pages handed to one call of phase 1's UDF.
PREPARE_BATCH = 2_000
#: Parquet row groups and files of the scratch tables (Daft buffers one a file it writes).
ROW_GROUP_BYTES = 8 * 1024 * 1024
FILE_BYTES = 64 * 1024 * 1024
#: Parquet files a scan decodes at once. Daft's default scans many at once, so the memory of
#: a scan grew with the number of files (with the crawl: 0.8 GiB at 100,000 pages, 1.1 GiB at
#: 300,000, each file a 110 MB row group); one at a time, a scan holds a file's row group.
SCANS_AT_ONCE = 1
#: On Ray, each partition of a step writes its own file, and a scan makes a task of each
#: file: a step over a part of the pages read every file the steps before it wrote, and
#: wrote as many again. At a million pages (10 parts) the exact election's tables held
#: 2,200-4,000 files, and the election took over 30 minutes on a three-node local cluster
#: (15 s on the native runner). Merging a scan's small files into
#: tasks of 32-128 MiB keeps the tasks and files few: 200,000 pages on a three-node local
#: cluster took 218.8 s, 91.9 s so, with higher node peaks (docs/scaling.md). The native
#: runner writes a file a step already, and keeps its own scans.
RAY_SOURCES_PER_SCAN = 1000
RAY_SCAN_BYTES = (32 * 2**20, 128 * 2**20)  # a merged scan task's least and most (estimated)
#: The columns of the scratch table of pages that only verification and clustering read.
TEXTS = ("content", "html")


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
    The run's intermediate tables live under ``_scratch/`` there until it ends
    (:mod:`.scratch`). ``store``: how to reach ``s3://`` inputs and output (default: the AWS
    environment); ``io_config``: a Daft ``IOConfig`` of one's own instead, for the inputs only.
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
    target: Path | RemoteDir = RemoteDir(str(out), store) if remote and store else Path(out)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise InputError(
            f"{out} already exists and is not empty; give a new directory for --out "
            "(or remove the old one)"
        )
    if isinstance(target, Path):
        check_writable(target)
    t0 = time.perf_counter()
    runner = use_runner(ray_address)
    run = _Run(config, config.near_spec())
    with run.phase("read"):
        pages, _names = read_pages(inputs, config, io_config)
        total = check_ids(pages, PAGES_PER_PART)
        run.verdicts = read_verdicts(pages)
    if on_message is not None:
        on_message(f"Daft ({runner} runner): {total:,} pages")
    # Daft's default of 200 partitions a shuffle costs more than it saves below millions of
    # pages (each partition is a task on Ray); a part is at most PAGES_PER_PART pages
    parts = max(1, math.ceil(total / PAGES_PER_PART))
    daft.set_execution_config(
        shuffle_aggregation_default_partitions=max(1, min(200, total // parts // 20_000)),
        parquet_target_row_group_size=ROW_GROUP_BYTES,
        parquet_target_filesize=FILE_BYTES,
        scantask_max_parallel=SCANS_AT_ONCE,
        # (None: Daft's own setting)
        enable_scan_task_split_and_merge=True if runner == "ray" else None,
        max_sources_per_scan_task=RAY_SOURCES_PER_SCAN if runner == "ray" else None,
        scan_tasks_min_size_bytes=RAY_SCAN_BYTES[0] if runner == "ray" else None,
        scan_tasks_max_size_bytes=RAY_SCAN_BYTES[1] if runner == "ray" else None,
    )
    res = DaftResult(
        out=str(target), runner=runner, pages=total, ignored=0, url_duplicates=0,
        exact_duplicates=0, near_duplicates=0, groups=0, candidates=0, edges=0,
        wall_seconds=0.0, timings=run.timings,
    )

    def produce(where: str, out_io: Any) -> None:
        run.scratch = Scratch(f"{where}/_scratch", parts, out_io, store)
        try:
            with run.phase("prepare"):
                run.prepare(pages)
            with run.phase("elect_url"):
                run.elect_urls()
            with run.phase("elect_exact"):
                run.elect_exact()
            with run.phase("candidates"):
                run.candidates()
            with run.phase("verify"):
                res.candidates, res.edges = run.verify()
            with run.phase("cluster"):
                run.cluster()
            with run.phase("assign"):
                run.assign(f"{where}/pages", out_io)
            with run.phase("write"):
                run.write_pairs(where, out_io)
                for name, value in _counts(daft.read_parquet(f"{where}/pages/*.parquet",
                                                             io_config=out_io)).items():
                    setattr(res, name, value)
        finally:
            run.scratch.remove()

    def manifest() -> dict[str, Any]:
        res.wall_seconds = round(time.perf_counter() - t0, 4)
        return run.manifest(list(inputs), res)

    write_output(target, produce, manifest)
    res.wall_seconds = round(time.perf_counter() - t0, 4)
    return res


class _Run:
    """The tables of one run, phase by phase (each method is one phase of ``db``), kept in
    its :class:`~.scratch.Scratch` tables, computed a part at a time."""

    def __init__(self, config: Config, spec: NearSpec) -> None:
        self.config, self.spec = config, spec
        self.timings: dict[str, float] = {}
        self.verdicts = Verdicts()
        self.scratch: Scratch = Scratch("", 1)
        self.group_edges: Any = None

    def manifest(self, inputs: list[str], res: DaftResult) -> dict[str, Any]:
        """What produced the output, for ``webdedup db --assignments`` to check."""
        return {
            "webdedup_version": __version__,
            "method": self.config.method,
            "scheme": self.spec.scheme,
            "fingerprint": self.config.fingerprint(),
            "shaping": self.config.shaping_parameters(),
            "config": asdict(self.config),
            "inputs": inputs,
            "verdicts": self.verdicts.as_json(),
            "result": asdict(res),
        }

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.timings[name] = round(time.perf_counter() - start, 4)

    # -- the tables read back -------------------------------------------------------------
    def prepared(self, part: int | None = None, texts: bool = False) -> Any:
        """The prepared pages (of one part of their ids), with their texts if ``texts``."""
        from daft import col
        from daft.functions import when

        df = self.scratch.read("prepared", part)
        if not texts:
            df = df.exclude(*TEXTS)
        if self.config.n_min > 0:  # the n_min filter (sql/small_hosts.sql)
            small = self.scratch.read("small_hosts")
            df = df.join(small, left_on="host", right_on="_small", how="left")
            small_host = col("ignored").is_null() & col("_small").not_null()
            df = df.with_column(
                "ignored", when(small_host, "small_host").otherwise(col("ignored"))
            ).exclude("_small")
        return df

    def active(self, part: int | None = None) -> Any:
        """The pages not ignored, with what the elections and phase 4's nodes read."""
        from daft import col

        return self.prepared(part).where(col("ignored").is_null()).select(
            "id", "url_key", "content_hash", "word_count", *MEMBER[1:]
        )

    def of_part(self, name: str, column: str, k: int) -> Any:
        """The rows of table ``name`` whose ``column`` falls in part ``k``."""
        return self.scratch.read(name).where(self.scratch.part(column, k))

    # -- the phases -----------------------------------------------------------------------
    def prepare(self, pages: Any) -> None:
        """Phase 1, and the ``n_min`` filter (``sql/small_hosts.sql``): the prepared pages
        and their texts, partitioned by id (a part's texts are read together)."""
        from daft import col, lit

        prep = prepare_udf(self.config, self.spec, PREPARE_BATCH)
        inputs = ("id", "url", "content", "html", "datetime", "crawled", "category", "lang")
        prepared = pages.select(
            col("id").alias("_id"), col("pin_rank"), *map(col, TEXTS), prep(*map(col, inputs))
        ).exclude("_id")
        self.scratch.write("prepared", prepared, by="id")
        if self.config.n_min > 0:
            small = (
                self.scratch.read("prepared")
                .where(col("host").not_null())
                .groupby("host")
                .agg(col("id").count().alias("_n"))
                .where(col("_n") < lit(self.config.n_min))
                .select(col("host").alias("_small"))
            )
            self.scratch.write("small_hosts", small)

    def elect_urls(self) -> None:
        """Phase 2 (``sql/elect_url.sql``), a part of the URL keys at a time."""
        election, pinned = self.config.election, bool(self.verdicts.pins)
        self.scratch.each_part("url_el", lambda k: elect(
            self.active().where(self.scratch.part("url_key", k)),
            "url_key", election, "url_rank", "url_winner", pinned,
        ))

    def elect_exact(self) -> None:
        """Phase 3: URL groups linked by shared texts (``sql/exact_links.sql``), their
        connected components, the election in each (``sql/elect_exact.sql``)."""
        from daft import col, lit

        s = self.scratch
        s.each_part("links", lambda k: (
            self.active(k).join(self.of_part("url_el", "id", k).select("id", "url_winner"),
                                on="id")
            .where(
                (col("url_winner") == col("id")) | (col("word_count") >= lit(self.config.min_words))
            )
            .select("content_hash", col("url_winner").alias("w"))
        ))

        def link_edges(k: int) -> Any:
            links = self.of_part("links", "content_hash", k).distinct()
            roots = links.groupby("content_hash").agg(col("w").min().alias("root"))
            return (
                links.join(roots, on="content_hash")
                .where(col("w") != col("root"))
                .select(col("root").alias("u"), col("w").alias("v"))
            )

        edges = s.each_part("link_edges", link_edges)
        s.write("exact_components", connected_components(edges).select(
            col("node").alias("id"), "component"
        ))
        s.each_part("winners", lambda k: (
            self.active(k)
            .join(self.of_part("url_el", "id", k).where(col("url_winner") == col("id"))
                  .select("id"), on="id")
            .join(self.of_part("exact_components", "id", k), on="id", how="left")
            .with_column("component", col("component").fill_null(col("id")))
        ))
        s.each_part("exact_el", lambda k: elect(
            self.of_part("winners", "component", k), "component", self.config.election,
            "exact_rank", "exact_winner", bool(self.verdicts.pins),
        ))
        s.each_part("page_group", lambda k: (
            self.of_part("url_el", "url_winner", k).select("id", "url_winner").join(
                self.of_part("exact_el", "id", k).select(
                    col("id").alias("url_winner"), "exact_winner"
                ),
                on="url_winner",
            )
        ))

    def candidates(self) -> None:
        """Phase 4's nodes (``sql/near_nodes.sql``) and their candidate pairs: band keys
        exploded and self-joined (as ``algorithms.bands.candidate_pairs`` pairs them), a
        part of the band keys at a time."""
        from daft import col, lit

        s = self.scratch
        s.each_part("node_rows", lambda k: (
            self.active(k).where(col("word_count") >= lit(self.spec.min_words))
            .select("id", "content_hash")
            .join(self.of_part("page_group", "id", k).select("id", "exact_winner"), on="id")
        ))
        s.each_part("nodes", lambda k: (
            self.of_part("node_rows", "exact_winner", k)
            .groupby("exact_winner", "content_hash")
            .agg(col("id").min().alias("id"))
            .select("id", col("exact_winner").alias("component"))
        ))
        node_bands = s.each_part("node_bands", lambda k: (
            self.prepared(k).select("id", "band_keys")
            .join(self.of_part("nodes", "id", k), on="id")
        ))
        # a part is a range of bands: band j's keys carry j in their high bits, so keys of
        # different bands never meet and each range pairs apart from the others
        per_part = max(1, BAND_ROWS_PER_PART // max(1, s.count("nodes")))

        def pairs(first: int) -> Any:
            last = min(self.spec.bands, first + per_part)
            bands = (
                node_bands.with_column("band_keys", col("band_keys").slice(first, last))
                .explode("band_keys")
                .select(col("band_keys").alias("band_key"), "id", "component")
            )
            counted = bands.groupby("band_key").agg(col("id").count().alias("_n"))
            shared = counted.where(col("_n") > lit(1)).select("band_key")
            nb = bands.join(shared, on="band_key")
            x = nb.select("band_key", col("id").alias("a"), col("component").alias("ca"))
            y = nb.select(
                col("band_key").alias("_k"), col("id").alias("b"), col("component").alias("cb")
            )
            return (
                x.join(y, left_on="band_key", right_on="_k")
                .where((col("b") > col("a")) & (col("cb") != col("ca")))
                .select("a", "b", "ca", "cb")
                .distinct()
            )

        for first in range(0, self.spec.bands, per_part):
            s.write("pair_rows", pairs(first))

    def texts(self, k: int, side: str) -> Any:
        """Part ``k``'s pages as side ``side`` (``a``/``b``) of a pair: id, texts, hash and
        language (what verification and the language guard read)."""
        from daft import col

        return self.prepared(k, texts=True).select(
            col("id").alias(side),
            *(col(t).alias(f"_{t}_{side}") for t in TEXTS),
            col("content_hash").alias(f"_x{side}"),
            col("lang").alias(f"_l{side}"),
            col("lang_score").alias(f"_s{side}"),
        )

    def verify(self) -> tuple[int, int]:
        """Each candidate verified on its texts (``phase4_near.verify_chunk``), then the
        language guard; the candidates and the edges. The texts of a pair meet in two steps:
        a part of the ``a`` pages with their pairs, then a part of the ``b`` pages."""
        from daft import col, lit

        s = self.scratch
        s.each_part("with_a", lambda k: (
            self.of_part("pair_rows", "a", k).distinct().join(self.texts(k, "a"), on="a")
        ), by="b")
        verify = verify_udf(self.spec)
        scored = s.each_part("scored", lambda k: (
            s.read("with_a", k).join(self.texts(k, "b"), on="b")
            .into_batches(VERIFY_BATCH)
            .with_column(
                "score",
                verify(col("a"), col("b"), col("_content_a"), col("_html_a"),
                       col("_content_b"), col("_html_b")),
            )
            .exclude("_content_a", "_html_a", "_content_b", "_html_b")
        ))
        verified = scored.where(col("score") >= lit(self.spec.threshold))
        s.write("edges", same_language(verified).select("a", "b", "ca", "cb", "score"))
        return s.count("scored"), s.count("edges")

    def cluster(self) -> None:
        """Edges lifted to exact groups less the reviewers' cannot-links (the rule of
        ``cluster.group_pairs``; the cannot-links as an anti-join), their connected
        components, and ``group_near`` in each (a part of the components at a time)."""
        from daft import col, lit
        from daft.functions import to_struct, when

        s = self.scratch
        edges = s.read("edges")
        lo = when(col("ca") < col("cb"), col("ca")).otherwise(col("cb"))
        hi = when(col("ca") < col("cb"), col("cb")).otherwise(col("ca"))
        group_edges = (
            edges.select(lo.alias("a"), hi.alias("b"), "score")
            .groupby("a", "b")
            .agg(col("score").max().alias("score"))
        )
        apart = self.groups_apart()
        if apart is not None:  # reviewers' "not a duplicate", before the components
            group_edges = group_edges.join(apart, on=["a", "b"], how="anti")
        s.write("group_edges", group_edges)
        group_edges = s.read("group_edges")
        s.write("near_components", connected_components(
            group_edges.select(col("a").alias("u"), col("b").alias("v"))
        ).select(col("node").alias("id"), "component"))
        member = to_struct(*(col(c) for c in (*MEMBER, *TEXTS)))
        s.each_part("members", lambda k: (
            self.of_part("near_components", "id", k)
            .join(self.prepared(k, texts=True).select(*MEMBER, *TEXTS), on="id")
            .select("component", member.alias("m"))
        ), by="component")
        by_a = s.read("near_components").select(col("id").alias("a"), "component")
        s.write("component_edges", group_edges.join(by_a, on="a").select(
            "component", to_struct(col("a"), col("b"), col("score")).alias("e")
        ))
        if apart is not None:  # each component's pairs kept apart, beside its edges
            s.write("component_apart", apart.join(by_a, on="a").select(
                "component", to_struct(col("a"), col("b")).alias("p")
            ))
        cluster = cluster_udf(self.spec, self.config)

        def near(k: int) -> Any:
            members = (
                s.read("members", k).groupby("component")
                .agg(col("m").list_agg().alias("members"))
            )
            comp_edges = (
                self.of_part("component_edges", "component", k).groupby("component")
                .agg(col("e").list_agg().alias("edges"))
            )
            rows = members.join(comp_edges, on="component")
            if apart is not None:
                pairs = (
                    self.of_part("component_apart", "component", k).groupby("component")
                    .agg(col("p").list_agg().alias("apart"))
                )
                rows = rows.join(pairs, on="component", how="left")
            else:
                rows = rows.with_column("apart", lit(None).cast(apart_type()))
            return (
                rows.select(cluster(col("members"), col("edges"), col("apart")).alias("r"))
                .explode("r")
                .where(col("r").not_null())
                .select(
                    col("r")["id"].alias("id"),
                    col("r")["center"].alias("near_center"),
                    col("r")["score"].alias("near_score"),
                )
            )

        s.each_part("near", near)

    def groups_apart(self) -> Any:
        """The cannot-link pairs as pairs of exact groups (``phase4_near._groups_apart``,
        ``cluster.groups_apart``): the input's ``not_duplicate_of`` joined with the pages'
        exact groups; ``None`` without such verdicts."""
        import daft
        import pyarrow as pa
        from daft import col
        from daft.functions import when

        if not self.verdicts.cannot_link:
            return None
        pairs = sorted(self.verdicts.cannot_link)  # read with the input, for the manifest
        verdicts = daft.from_arrow(pa.table({
            "x": pa.array([a for a, _ in pairs], pa.int64()),
            "y": pa.array([b for _, b in pairs], pa.int64()),
        }))
        group = self.scratch.read("page_group").select("id", "exact_winner")
        wa = group.select(col("id").alias("x"), col("exact_winner").alias("wa"))
        wb = group.select(col("id").alias("y"), col("exact_winner").alias("wb"))
        lifted = verdicts.join(wa, on="x").join(wb, on="y").where(col("wa") != col("wb"))
        lo = when(col("wa") < col("wb"), col("wa")).otherwise(col("wb"))
        hi = when(col("wa") < col("wb"), col("wb")).otherwise(col("wa"))
        self.scratch.write("apart", lifted.select(lo.alias("a"), hi.alias("b")).distinct())
        return self.scratch.read("apart")

    def assign(self, where: str, io_config: Any) -> None:
        """Every page's group, canonical and kind (``sql/assign.sql``), and
        ``exact_group_size`` (``sql/write_prepare.sql``), written to ``where`` a part of the
        page ids at a time."""
        from daft import col
        from daft.functions import when

        s = self.scratch
        near = s.read("near").select(col("id").alias("exact_winner"), "near_center",
                                     "near_score")
        s.each_part("base", lambda k: (
            self.of_part("page_group", "id", k).join(near, on="exact_winner", how="left")
            .with_column("canonical_id", col("near_center").fill_null(col("exact_winner")))
        ))

        def group_of(k: int) -> Any:
            base = self.of_part("base", "canonical_id", k).select("id", "canonical_id")
            per_group = base.groupby("canonical_id").agg(
                col("id").min().alias("dup_group"), col("id").count().alias("dup_group_size")
            )
            return base.join(per_group, on="canonical_id").select(
                "id", "dup_group", "dup_group_size"
            )

        s.each_part("group_of", group_of)

        def text_size(k: int) -> Any:
            texts = self.active().where(s.part("content_hash", k)).select("id", "content_hash")
            per_text = texts.groupby("content_hash").agg(
                col("id").count().alias("exact_group_size")
            )
            return texts.join(per_text, on="content_hash").select("id", "exact_group_size")

        s.each_part("text_size", text_size)
        ignored = col("ignored").not_null()
        for k in range(s.parts):
            assigned = (
                self.of_part("base", "id", k)
                .join(self.of_part("group_of", "id", k), on="id")
                .with_columns({
                    "is_canonical": (col("id") == col("canonical_id")).cast("int64"),
                    "dup_kind": when(col("id") == col("canonical_id"), None)
                    .when(col("id") != col("url_winner"), "url")
                    .when(col("id") != col("exact_winner"), "exact")
                    .otherwise("near"),
                    "dup_score": when(col("exact_winner") == col("canonical_id"), 1.0)
                    .otherwise(col("near_score").fill_null(1.0)),
                })
            )
            (
                self.prepared(k)
                .join(assigned, on="id", how="left")
                .join(self.of_part("url_el", "id", k).select("id", "url_rank"), on="id",
                      how="left")
                .join(self.of_part("exact_el", "id", k).select("id", "exact_rank"), on="id",
                      how="left")
                .join(self.of_part("text_size", "id", k), on="id", how="left")
                .with_columns({
                    "dup_kind": when(ignored, "ignored").otherwise(col("dup_kind")),
                    "exact_group_size": when(~ignored, col("exact_group_size")),
                })
                .select(*PAGE_COLUMNS)
                .sort("id")
                .write_parquet(where, io_config=io_config)
            )

    def write_pairs(self, where: str, io_config: Any) -> None:
        """The output's ``edges/`` and ``verified/`` (pairs of content hashes, each once)."""
        from daft import col
        from daft.functions import when

        s = self.scratch
        s.read("edges").select("a", "b", "score").sort(["a", "b"]).write_parquet(
            f"{where}/edges", io_config=io_config
        )
        lo = when(col("_xa") < col("_xb"), col("_xa")).otherwise(col("_xb"))
        hi = when(col("_xa") < col("_xb"), col("_xb")).otherwise(col("_xa"))
        hashes = s.read("scored").select(lo.alias("hash_a"), hi.alias("hash_b"), "score")
        for k in range(s.parts):
            (
                hashes.where(s.part("hash_a", k)).distinct().sort(["hash_a", "hash_b"])
                .write_parquet(f"{where}/verified", io_config=io_config)
            )


#: The columns of the output's ``pages/`` files.
PAGE_COLUMNS = (
    *PREPARED_TYPES, "sketch", "band_keys", "url_rank", "url_winner", "exact_rank",
    "exact_winner", "near_center", "near_score", "exact_group_size", "dup_group",
    "dup_group_size", "canonical_id", "is_canonical", "dup_kind", "dup_score",
)


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


__all__ = ["PAGE_COLUMNS", "SUPPORTED_METHODS", "DaftResult", "run_daft"]
