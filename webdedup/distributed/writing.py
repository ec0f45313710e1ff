"""The output of ``webdedup daft``: ``pages/``, ``edges/`` and ``verified/`` Parquet parts (the
run, :func:`~.daft_pipeline.run_daft`, writes them) and, last, the manifest that ``webdedup db
--assignments`` checks; into a fresh directory renamed into place when complete, or straight
into an ``s3://`` prefix (:class:`RemoteDir`)."""

from __future__ import annotations

import errno
import json
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..errors import DiskFull, ReadOnlyOutput
from .objectstore import ObjectStore, bucket_path

#: The manifest next to the output's Parquet files.
MANIFEST = "_webdedup_manifest.json"
MANIFEST_FORMAT = "webdedup-daft-assignments"
MANIFEST_VERSION = 1


class RemoteDir:
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


#: The manifest's content, asked for once the Parquet parts are written (it holds the run's
#: wall time).
Manifest = Callable[[], dict[str, Any]]
#: What writes the output's Parquet parts into a directory (its URL and Daft ``IOConfig``).
Produce = Callable[[str, Any], None]


def write_output(target: Path | RemoteDir, produce: Produce, manifest: Manifest) -> None:
    """Have ``produce`` write the run's Parquet parts (``pages/``, ``edges/``, ``verified/``,
    and its scratch tables while it runs) into a fresh directory beside ``target``, then the
    ``manifest``, and rename that directory to ``target`` when complete (on object storage:
    straight into ``target``, the manifest last, all removed on failure)."""
    if isinstance(target, RemoteDir):
        try:
            produce(target.url, target.store.io_config())
            _write_manifest(manifest, target.url, target.fs)
        except BaseException:
            target.fs.delete_dir_contents(target.path, missing_dir_ok=True)
            raise
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        produce(str(work), None)
        _write_manifest(manifest, str(work), None)
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


def check_writable(target: Path) -> None:
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


def _write_manifest(manifest: Manifest, where: str, filesystem: Any) -> None:
    """The output's manifest, last (into ``where``)."""
    content = {"format": MANIFEST_FORMAT, "version": MANIFEST_VERSION, **manifest()}
    text = json.dumps(content, indent=2, default=list) + "\n"
    if filesystem is None:
        Path(where, MANIFEST).write_text(text)
    else:
        with filesystem.open_output_stream(f"{bucket_path(where)}/{MANIFEST}") as f:
            f.write(text.encode())
