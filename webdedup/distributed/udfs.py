"""The UDFs of ``webdedup daft``: webdedup's own functions called on dataframe batches, so
hashes, sketches, scores and groups are bit-identical to the SQLite path's.

* :func:`prepare_udf`: phase 1 (:func:`~webdedup.pipeline.phase1_prepare.prepare_batch`);
* :func:`verify_udf`: a candidate pair's score
  (:func:`~webdedup.pipeline.phase4_near.verify_chunk`);
* :func:`same_language`: the language guard
  (:func:`~webdedup.algorithms.language.different_languages`);
* :func:`cluster_udf`: ``group_near`` per connected component, in election order.
"""

from __future__ import annotations

from typing import Any

from ..algorithms.cluster import group_near
from ..algorithms.election import sort_key
from ..algorithms.language import different_languages
from ..algorithms.sketch import NearSpec, text_similarity
from ..config import Config
from ..pipeline.char_cache import load_char_table
from ..pipeline.phase1_prepare import PrepareJob, prepare_batch
from ..pipeline.phase4_near import verify_chunk
from ..store.pages import PageInput, as_text, page_digest
from .reading import page_input

PREPARED_TYPES = {
    "id": "int64", "url_hash": "string", "canonical_url": "string", "url_key": "string",
    "host": "string", "content_hash": "string", "text_len": "int64", "word_count": "int64",
    "is_external": "int64", "is_https": "int64", "url_len": "int64", "dt": "float64",
    "crawled_ts": "float64", "ignored": "string", "lang": "string", "lang_score": "float64",
}


def prepare_udf(config: Config, spec: NearSpec, batch_size: int | None = None) -> Any:
    import daft
    import pyarrow as pa
    from daft import DataType as DT

    job = PrepareJob(config, spec)
    fields = [(name, getattr(pa, kind)()) for name, kind in PREPARED_TYPES.items()]
    fields += [("sketch", pa.binary()), ("band_keys", pa.list_(pa.int64()))]
    arrow_type = pa.struct(fields)
    dtype = DT.from_arrow_type(arrow_type)

    @daft.func.batch(return_dtype=dtype, unnest=True, batch_size=batch_size)
    def prepare(*series: Any) -> Any:
        load_char_table()  # once a worker process (about 20 ms from disk, not 0.3-0.6 s)
        rows = zip(*(s.to_pylist() for s in series), strict=True)
        out = []
        for row, sketch, _ in prepare_batch(job, [page_input(r) for r in rows]):
            record = row._asdict()
            record["sketch"] = sketch[0] if sketch is not None else None
            record["band_keys"] = sketch[1] if sketch is not None else None
            out.append(record)
        return pa.array(out, type=arrow_type)

    return prepare


#: The election attributes of a page (``algorithms.election.Electable``), and the rank of a
#: reviewer's choice as canonical (NULL for most pages).
MEMBER = ("id", "is_external", "dt", "crawled_ts", "text_len", "is_https", "url_len",
           "pin_rank")


def verify_udf(spec: NearSpec) -> Any:
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


def apart_type() -> Any:
    """The type of a component's cannot-link pairs of exact groups (``cluster.groups_apart``):
    a list of ``{a, b}`` structs."""
    import pyarrow as pa
    from daft import DataType as DT

    return DT.from_arrow_type(pa.list_(pa.struct([("a", pa.int64()), ("b", pa.int64())])))


def cluster_udf(spec: NearSpec, config: Config) -> Any:
    """Per connected component of exact groups: ``group_near`` with the election order
    (reviewers' chosen canonicals first) and the component's cannot-link pairs of exact
    groups (:func:`~webdedup.algorithms.cluster.groups_apart`), a column joined to it."""
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
    def cluster(
        members: list[dict[str, Any]],
        edges: list[dict[str, Any]],
        apart: list[dict[str, Any]] | None,
    ) -> list[dict[str, Any]]:
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

        here = [(p["a"], p["b"]) for p in apart or () if p["a"] in rows and p["b"] in rows]
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


def same_language(edges: Any) -> Any:
    """The language guard of phase 4 (``pipeline.language_guard.keep_same_language``): the
    edges whose two pages are not surely in different languages (their languages and scores
    in ``_la``, ``_sa``, ``_lb``, ``_sb``)."""
    import daft
    from daft import DataType as DT
    from daft import col

    @daft.func.batch(return_dtype=DT.bool())
    def same(la: Any, sa: Any, lb: Any, sb: Any) -> list[bool]:  # NULLs in, as the guard reads
        rows = zip(*(s.to_pylist() for s in (la, sa, lb, sb)), strict=True)
        return [not different_languages(*row) for row in rows]

    return edges.where(same(col("_la"), col("_sa"), col("_lb"), col("_sb")))
