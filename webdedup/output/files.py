"""Output files written atomically: a half-written export never replaces a good one.

Example::

    >>> import io
    >>> with open_output(io.StringIO()) as fh:
    ...     _ = fh.write("ok")
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from ..errors import WebdedupError


class OutputError(WebdedupError):
    """An export file can't be written (missing folder, no permission, disk full)."""

    exit_code = 1


@contextmanager
def open_output(target: str | Path | TextIO, *, newline: str | None = None) -> Iterator[TextIO]:
    """A UTF-8 text file to write to.

    A path is written to a temporary file beside it, renamed over the path only once
    everything is written; an open text file (e.g. ``sys.stdout``) is used as it is, and so
    is a path that is not a regular file (``/dev/null``, a named pipe): renaming over it
    would replace a device with a file.
    """
    if not isinstance(target, str | Path):
        yield target
        return
    path = Path(target)
    if path.exists() and not path.is_file():  # a device, a pipe (a folder fails below)
        if path.is_dir():
            raise OutputError(f"can't write {path}: it is a folder")
        try:
            fh = path.open("w", encoding="utf-8", newline=newline)
        except OSError as exc:
            raise OutputError(f"can't write {path}: {exc.strerror or exc}") from exc
        with fh:
            yield fh
        return
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise OutputError(f"can't write {path}: folder {folder} does not exist")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise OutputError(f"can't write {path}: {exc.strerror or exc}") from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline=newline) as fh:
            yield fh
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except OSError as exc:
        _remove(tmp)
        raise OutputError(f"can't write {path}: {exc.strerror or exc}") from exc
    except BaseException:
        _remove(tmp)
        raise


def _remove(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except OSError:  # pragma: no cover - already gone
        pass
