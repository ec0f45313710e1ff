"""The phases of ``webdedup db`` as Daft dataframe operations (``webdedup daft``): the run.

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

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from ..algorithms.cluster import drop_cannot_links, groups_apart
from ..algorithms.sketch import NearSpec
from ..config import Config
from ..errors import ConfigError, InputError
from ..version import __version__
from .components import connected_components
from .elections import elect
from .objectstore import ObjectStore, is_remote
from .reading import Verdicts, check_ids, read_pages, read_verdicts
from .runner import use_runner
from .udfs import MEMBER, PREPARED_TYPES, cluster_udf, prepare_udf, same_language, verify_udf
from .writing import RemoteDir, check_writable, write_output

#: Methods this path runs (the others need the SQLite path for now).
SUPPORTED_METHODS = ("minhash",)
#: Candidate pairs handed to one verification UDF call.
VERIFY_BATCH = 1_000
#: Pages a shuffle partition is sized for.
PAGES_PER_PARTITION = 20_000


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


        def manifest() -> dict[str, Any]:
            res.wall_seconds = round(time.perf_counter() - t0, 4)
            return run.manifest(list(inputs), res)

        write_output(target, result, run.edges, run.scored, manifest)
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

    def prepare(self, pages: Any) -> None:
        """Phase 1, and the ``n_min`` filter (``sql/small_hosts.sql``)."""
        from daft import col, lit
        from daft.functions import when

        prep = prepare_udf(self.config, self.spec)
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
            "id", "url_key", "content_hash", "word_count", *MEMBER[1:]
        )

    def elect_urls(self) -> None:
        """Phase 2 (``sql/elect_url.sql``)."""
        election = self.config.election
        pinned = bool(self.verdicts.pins)
        self.url_el = elect(
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
        self.exact_el = elect(
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
        verify = verify_udf(self.spec)
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
        self.edges = same_language(verified, self.prepared).collect()
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
        member = to_struct(*(col(c) for c in (*MEMBER, "content", "html")))
        members = (
            components.select(col("node").alias("id"), "component")
            .join(self.prepared.select(*MEMBER), on="id")
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
        cluster = cluster_udf(self.spec, self.config, apart)
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
