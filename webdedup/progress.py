"""Progress on stderr: a tqdm bar on a terminal, a plain line every few seconds elsewhere.

A cron log or a CI log is not a terminal: tqdm's carriage returns would pile up there into
one endless line. :func:`progress_bar` gives the same small interface (``update``, ``close``)
either way.

Example::

    >>> import io
    >>> out = io.StringIO()
    >>> bar = progress_bar("prepare", total=3, unit="page", stream=out, every=0)
    >>> bar.update(2); bar.update(1); bar.close()
    >>> print(out.getvalue().strip())
    prepare: 2/3 pages (67%)
    prepare: 3/3 pages (100%)
    prepare: 3/3 pages (100%), done in 0.0 s
"""

from __future__ import annotations

import sys
import time
from typing import Any, Protocol, TextIO

from tqdm import tqdm

#: Seconds between two progress lines when stderr is not a terminal.
LINE_EVERY = 10.0


class Progress(Protocol):
    def update(self, n: int = 1) -> Any: ...

    def close(self) -> None: ...

    def __enter__(self) -> Any: ...

    def __exit__(self, *exc: Any) -> Any: ...


class LineProgress:
    """Progress as plain lines, at most one every ``every`` seconds (and one at the end)."""

    def __init__(self, desc: str, total: int | None, unit: str, stream: TextIO, every: float):
        self.desc, self.total, self.unit, self.stream, self.every = desc, total, unit, stream, every
        self.n = 0
        self.start = self.last = time.monotonic()

    def _line(self, suffix: str = "") -> None:
        one = self.n == 1 and self.total in (None, 0, 1)
        units = self.unit + ("s" if self.unit and not self.unit.endswith("s") and not one else "")
        done = f"{self.n:,}/{self.total:,}" if self.total else f"{self.n:,}"
        share = f" ({self.n / self.total:.0%})" if self.total else ""
        print(f"{self.desc}: {done} {units}{share}{suffix}", file=self.stream, flush=True)

    def update(self, n: int = 1) -> None:
        self.n += n
        now = time.monotonic()
        if now - self.last >= self.every:
            self.last = now
            self._line()

    def close(self) -> None:
        self._line(f", done in {time.monotonic() - self.start:.1f} s")

    def __enter__(self) -> LineProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def progress_bar(
    desc: str,
    total: int | None = None,
    unit: str = "it",
    *,
    enabled: bool = True,
    stream: TextIO | None = None,
    every: float = LINE_EVERY,
) -> Progress:
    """A progress display for ``desc``: tqdm on a terminal, lines elsewhere, nothing when
    not ``enabled``."""
    out = stream if stream is not None else sys.stderr
    if not enabled:
        return tqdm(total=total, disable=True)
    if out.isatty():
        return tqdm(
            total=total, desc=f"{desc:<12}", unit=unit, file=out, leave=True, dynamic_ncols=True
        )
    return LineProgress(desc, total, unit, out, every)
