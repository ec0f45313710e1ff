"""``webdedup ingest --parquet``: the same ingestion, written as Parquet files for ``webdedup
daft`` instead of into a database.

The pages go into a scratch database beside the output directory (so URLs, revisits and
bad records are handled exactly as :func:`~webdedup.ingest.ingest` handles them), which is
exported (:func:`~webdedup.distributed.parquet.export_parquet`) and removed.

Example::

    >>> import shutil, tempfile
    >>> from webdedup.ingest.parquet import ingest_parquet
    >>> folder = tempfile.mkdtemp()
    >>> done = ingest_parquet(f"{folder}/pages", ["fixtures/sample-crawl.warc.gz"], workers=1)
    >>> done.report.pages, done.export.pages, done.export.files
    (109, 109, 1)
    >>> shutil.rmtree(folder)
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import Columns
from ..distributed.parquet import ParquetExport, export_parquet
from ..errors import IngestProblems
from . import ingest
from .model import IngestReport


@dataclass(frozen=True)
class ParquetIngest:
    """What ``ingest_parquet`` did: the ingestion's report (None when ``strict`` stopped it
    at a bad record: ``stopped`` holds that error, raised once the export is written) and the
    Parquet export of the pages that went in."""

    report: IngestReport | None
    export: ParquetExport
    stopped: IngestProblems | None = None

    def lines(self) -> list[str]:
        head = [self.report.summary()] if self.report is not None else []
        return head + self.export.lines()


def ingest_parquet(
    out: str | Path,
    inputs: Iterable[str | Path],
    *,
    columns: Columns = Columns(),  # noqa: B008 - frozen dataclass, safe as a default
    **options: Any,
) -> ParquetIngest:
    """Ingest ``inputs`` as :func:`~webdedup.ingest.ingest` does (``options`` are its own),
    and write the pages as Parquet files into the new directory ``out``.

    ``columns`` maps the page fields to the scratch table's names, and the export reads them
    back with it. A ``strict`` ingestion stopped by a bad record still exports the pages
    before it (``ParquetIngest.stopped``).
    """
    target = Path(out)
    target.parent.mkdir(parents=True, exist_ok=True)
    report: IngestReport | None = None
    stopped: IngestProblems | None = None
    with tempfile.TemporaryDirectory(prefix=".ingest.", dir=target.parent) as scratch:
        scratch_db = Path(scratch) / "pages.sqlite"
        try:
            report = ingest(scratch_db, inputs, columns=columns, **options)
        except IngestProblems as exc:  # strict: the pages before the bad record are written
            stopped = exc
        export = export_parquet(scratch_db, target, columns if columns != Columns() else None)
    return ParquetIngest(report, export, stopped)
