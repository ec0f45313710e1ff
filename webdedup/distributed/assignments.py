"""The hand-off from Daft back to SQLite: ``webdedup db DB --assignments OUT``.

A Daft run's output (:func:`~webdedup.distributed.daft_pipeline.run_daft`) holds, per page,
the rows phases 1-4 of a SQLite run leave in its TEMP work tables: the prepared row, the
sketch and band keys, both elections, the near-duplicate centre; and the edges and verified
pairs. :class:`Assignments` loads them into those tables, so that the ordinary assignment and
write-back (``sql/assign.sql``, phase 5) annotate the pages and store webdedup's state in one
transaction, exactly as a full run would: the next plain ``webdedup db`` is incremental.

Refused, with the database untouched: an output made with other shaping parameters than this
run's configuration, one whose page ids or URLs are not the table's, and one made with other
reviewers' verdicts than the database holds now (a verdict given after ``export --parquet``).
"""

from __future__ import annotations

import glob
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..algorithms.urls import url_hash
from ..config import Config
from ..errors import ConfigError, InputError
from ..pipeline.context import NearResult, RunContext
from ..store import quote, run_script, sql
from ..store.layout import Layout
from ..store.verdicts import cannot_links, pin_ranks, read_verdicts
from .writing import MANIFEST, MANIFEST_FORMAT, MANIFEST_VERSION

#: Rows read from Parquet and inserted at a time.
BATCH_ROWS = 20_000
_PREPARED = (
    "id", "url_hash", "canonical_url", "url_key", "host", "content_hash", "text_len",
    "word_count", "is_external", "is_https", "url_len", "dt", "crawled_ts", "ignored",
    "lang", "lang_score",
)
#: Configuration fields that do not shape the result (and the column mapping, which names
#: the Parquet's columns on one side and the table's on the other).
_NOT_SHAPING = ("columns",)


def locate(spec: str) -> Path:
    """The output directory named by ``--assignments``: the directory itself, or a glob of
    its Parquet files (``'assignments/*.parquet'``, ``'assignments/pages/*.parquet'``)."""
    path = Path(spec)
    candidates = [path] if path.is_dir() else [Path(p) for p in sorted(glob.glob(spec))]
    if not candidates:  # 'assignments/*.parquet': the files live in assignments/pages/
        fixed = Path(re.split(r"[*?\[]", spec, maxsplit=1)[0] or ".")
        candidates = [fixed if fixed.is_dir() else fixed.parent]
    for found in candidates:
        for d in (found, found.parent) if found.is_dir() else found.parents[:2]:
            if (d / MANIFEST).is_file():
                return d
    raise InputError(
        f"{spec!r} is not the output of 'webdedup daft' (no {MANIFEST} found there); give "
        "the directory that 'webdedup daft --out' wrote"
    )


@dataclass
class Assignments:
    """A Daft run's output, read into a run's TEMP tables by :func:`run_on_db`."""

    directory: Path
    manifest: dict[str, Any]

    @classmethod
    def open(cls, spec: str) -> Assignments:
        directory = locate(spec)
        try:
            manifest = json.loads((directory / MANIFEST).read_text())
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot read {directory / MANIFEST}: {exc}") from exc
        if (
            not isinstance(manifest, dict)
            or manifest.get("format") != MANIFEST_FORMAT
            or manifest.get("version") != MANIFEST_VERSION
        ):
            raise InputError(
                f"{directory / MANIFEST} is not a webdedup daft manifest of version "
                f"{MANIFEST_VERSION}; run 'webdedup daft' again with this webdedup"
            )
        return cls(directory, manifest)

    # -- checks (before anything is written) --------------------------------------------------
    def check(self, conn: Any, config: Config, layout: Layout) -> None:
        """Refuse an output made with other parameters, or for other pages than the table's.

        Fills ``temp.run_prepared`` (TEMP only: the database file is not touched).
        """
        ours = {k: v for k, v in config.shaping_parameters().items() if k not in _NOT_SHAPING}
        theirs = {
            k: v for k, v in dict(self.manifest.get("shaping") or {}).items()
            if k not in _NOT_SHAPING
        }
        if ours != theirs:
            changed = sorted(
                k for k in set(ours) | set(theirs) if ours.get(k) != theirs.get(k)
            )
            detail = ", ".join(
                f"{k}: {theirs.get(k)!r} there, {ours.get(k)!r} here" for k in changed
            )
            raise ConfigError(
                f"the assignments in {self.directory} were made with other parameters ({detail});"
                " run 'webdedup db --assignments' with the same --config as 'webdedup daft'"
            )
        run_script(conn, "run_tables")
        run_script(conn, "assignments_tables")
        insert = "INSERT INTO temp.run_prepared VALUES (" + ", ".join("?" * len(_PREPARED)) + ")"
        try:
            for batch in self._batches("pages", _PREPARED):
                conn.executemany(insert, zip(*(batch[c] for c in _PREPARED), strict=True))
        except Exception as exc:
            if "UNIQUE" in str(exc):
                raise InputError(
                    f"page ids repeat in {self.directory}/pages; run 'webdedup daft' again"
                ) from exc
            raise
        self.verify_pages(conn, layout)
        self.verify_verdicts(conn)

    def verify_verdicts(self, conn: Any) -> None:
        """Raise unless the output was made with the verdicts the database holds on its pages
        (``webdedup export --parquet`` wrote them; one given since would not be applied)."""
        verdicts = read_verdicts(conn)
        named = sorted({p for v in verdicts for p in (v.page_a, v.page_b) if p is not None})
        present = {
            int(r[0])
            for r in conn.execute(
                "SELECT id FROM temp.run_prepared WHERE id IN (SELECT value FROM json_each(?))",
                (json.dumps(named),),
            )
        }
        pins = {pid: rank for pid, rank in pin_ranks(verdicts).items() if pid in present}
        apart = {pair for pair in cannot_links(verdicts) if set(pair) <= present}
        used = dict(self.manifest.get("verdicts") or {})
        their_pins = {int(p): int(r) for p, r in used.get("pins") or ()}
        their_apart = {(int(a), int(b)) for a, b in used.get("cannot_link") or ()}
        if pins != their_pins or apart != their_apart:
            raise InputError(
                f"the assignments in {self.directory} were made with other reviewers' verdicts "
                f"({len(their_pins)} chosen canonical(s), {len(their_apart)} 'not a duplicate' "
                f"pair(s)) than this database holds ({len(pins)} and {len(apart)}): a verdict "
                "was given or withdrawn since 'webdedup export --parquet'. Export and run "
                "'webdedup daft' again, or run 'webdedup db --full'; nothing was written"
            )

    def verify_pages(self, conn: Any, layout: Layout) -> None:
        """Raise unless ``temp.run_prepared`` holds exactly the table's pages and URLs."""
        conn.create_function("webdedup_url_hash", 1, _url_hash_sql, deterministic=True)
        missing, extra, moved = conn.execute(
            sql(
                "assignments_check",
                pages=quote(layout.table),
                rowid=quote(layout.rowid),
                url=quote(layout.url),
            )
        ).fetchone()
        if missing or extra or moved:
            problems = [
                f"{n:,} {what}"
                for n, what in (
                    (missing, f"page(s) of {layout.table!r} are not in them"),
                    (extra, f"page id(s) are not in {layout.table!r}"),
                    (moved, "page(s) have another URL in the table than in them"),
                )
                if n
            ]
            raise InputError(
                f"the assignments in {self.directory} do not match this database: "
                f"{'; '.join(problems)}. They must come from 'webdedup export --parquet' of "
                "this database, deduplicated by 'webdedup daft' before the table changed; "
                "nothing was written"
            )

    # -- the run's tables ---------------------------------------------------------------------
    def fill(self, ctx: RunContext) -> NearResult:
        """Fill the TEMP tables of phases 1-4 (after :meth:`check`, inside the snapshot)."""
        conn, spec = ctx.conn, ctx.spec
        self.verify_pages(conn, ctx.layout)  # again, inside the run's read snapshot
        self.verify_verdicts(conn)
        scheme = self.manifest.get("scheme")
        if scheme != spec.scheme:
            raise ConfigError(
                f"the sketches in {self.directory} are {scheme!r}, this run's are "
                f"{spec.scheme!r}; run 'webdedup daft' again with this configuration"
            )
        cols = ("id", "sketch", "url_rank", "url_winner", "exact_rank",
                "exact_winner", "near_center", "near_score")
        for b in self._batches("pages", cols):
            rows = list(zip(*(b[c] for c in cols), strict=True))
            sketched = [r for r in rows if r[1] is not None]
            conn.executemany(  # as phase 1 stores them (store.work)
                "INSERT INTO temp.run_sketches (id, scheme, sketch) VALUES (?, ?, ?)",
                [(r[0], spec.scheme, r[1]) for r in sketched],
            )
            conn.executemany(
                "INSERT INTO temp.run_url_election (id, url_rank, url_winner) VALUES (?, ?, ?)",
                [(r[0], r[2], r[3]) for r in rows if r[3] is not None],
            )
            conn.executemany(
                "INSERT INTO temp.run_exact_election (id, exact_rank, exact_winner) "
                "VALUES (?, ?, ?)",
                [(r[0], r[4], r[5]) for r in rows if r[4] is not None],
            )
            conn.executemany(
                "INSERT INTO temp.run_near (id, center, score) VALUES (?, ?, ?)",
                [(r[0], r[6], r[7]) for r in rows if r[6] is not None and r[0] == r[5]],
            )
        edges = 0
        for b in self._batches("edges", ("a", "b", "score")):
            conn.executemany(
                "INSERT INTO temp.run_edges (a, b, score, method) VALUES (?, ?, ?, ?)",
                [(a, x, s, spec.method) for a, x, s in zip(b["a"], b["b"], b["score"],
                                                             strict=True)],
            )
            edges += len(b["a"])
        for b in self._batches("verified", ("hash_a", "hash_b", "score")):
            conn.executemany(
                "INSERT OR IGNORE INTO temp.run_verified (hash_a, hash_b, score) "
                "VALUES (?, ?, ?)",
                zip(b["hash_a"], b["hash_b"], b["score"], strict=True),
            )
        result = self.manifest.get("result") or {}
        return NearResult(candidates=int(result.get("candidates", 0)), edges=edges)

    def _batches(self, part: str, columns: tuple[str, ...]) -> Iterator[dict[str, list[Any]]]:
        import pyarrow.dataset as ds

        where = self.directory / part
        if not where.is_dir():
            raise InputError(f"{where} is missing: the output of 'webdedup daft' is incomplete")
        try:
            dataset = ds.dataset(str(where), format="parquet")
            missing = [c for c in columns if c not in dataset.schema.names]
            if missing:
                raise InputError(
                    f"{where} has no column(s) {', '.join(missing)}; columns found: "
                    f"{', '.join(dataset.schema.names)}"
                )
            for batch in dataset.to_batches(columns=list(columns), batch_size=BATCH_ROWS):
                yield batch.to_pydict()
        except InputError:
            raise
        except Exception as exc:  # pyarrow's errors for damaged files
            raise InputError(f"cannot read {where} as Parquet: {exc}") from exc


def _url_hash_sql(url: Any) -> str:
    """``webdedup_url_hash()`` of sql/assignments_check.sql (TEXT comes in as a BLOB: sqlite3
    decodes a function's TEXT arguments strictly; the URL is decoded leniently, as reads do)."""
    if isinstance(url, bytes):
        url = url.decode("utf-8", "replace")
    return url_hash(url if isinstance(url, str) else None)
