"""The intermediate tables of a ``webdedup daft`` run: Parquet under one scratch directory
(beside the output, locally or on ``s3://``), read back lazily, and the parts a run is cut
into so that no step holds a table of the whole crawl in memory.

Daft's native runner keeps what a window, a group-by or the build side of a join needs in
memory until the step ends, and ``collect()`` keeps a whole table until the run ends. So a
run writes each phase's result here and reads it back as a lazy dataframe (streamed: a scan
holds a batch at a time), and every step that must see all rows of a key at once runs once a
*part*: over the rows whose key hashes into that part (``hash(key) % parts``). Its memory is
then that of a part, whatever the size of the crawl; a Ray cluster runs the parts' tasks on
its nodes in the same way.

Tables whose parts are read again and again (the pages with their texts) are written
partitioned (``_part=K/`` folders, Hive style), so a part reads only its own files.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .objectstore import ObjectStore, bucket_path, is_remote

#: The column (and folder name) of a partitioned table's part.
PART = "_part"


def in_part(column: str, k: int, parts: int) -> Any:
    """The predicate "``column`` falls in part ``k`` of ``parts``" (true with one part)."""
    from daft import col, lit

    if parts <= 1:
        return lit(True)
    return (col(column).hash() % lit(parts)) == lit(k)


class Scratch:
    """Parquet tables under ``root``, each written once (``write``/``append``), read lazily."""

    def __init__(
        self, root: str, parts: int, io_config: Any = None, store: ObjectStore | None = None
    ) -> None:
        self.root, self.parts = root.rstrip("/"), max(1, parts)
        self.io_config, self.store = io_config, store
        self.schemas: dict[str, Any] = {}

    def part(self, column: str, k: int) -> Any:
        """The predicate "``column`` falls in part ``k``" of this run's parts."""
        return in_part(column, k, self.parts)

    def write(self, name: str, df: Any, by: str | None = None) -> None:
        """Append ``df`` to table ``name``; ``by``: partitioned by the part of that column."""
        from daft import col, lit

        self.schemas.setdefault(name, df.schema())
        where = f"{self.root}/{name}"
        if by is None:
            df.write_parquet(where, io_config=self.io_config)
            return
        with_part = df.with_column(PART, col(by).hash() % lit(self.parts))
        with_part.write_parquet(where, partition_cols=[PART], io_config=self.io_config)

    def each_part(self, name: str, make: Callable[[int], Any], by: str | None = None) -> Any:
        """Table ``name``: ``make(k)`` for each part ``k``, appended; read back lazily."""
        for k in range(self.parts):
            self.write(name, make(k), by)
        return self.read(name)

    def read(self, name: str, part: int | None = None) -> Any:
        """Table ``name`` (a lazy dataframe); ``part``: only that part of a partitioned one."""
        import daft
        from daft import col, lit

        schema = self.schemas[name]
        pattern = f"{self.root}/{name}/**/*.parquet"
        if not self._has_files(name):  # nothing written (no rows): an empty table
            return daft.from_arrow(schema.to_pyarrow_schema().empty_table())
        df = daft.read_parquet(pattern, io_config=self.io_config, hive_partitioning=True)
        if PART not in df.column_names:
            return df
        if part is not None:
            df = df.where(col(PART) == lit(part))
        return df.exclude(PART)

    def count(self, name: str) -> int:
        return int(self.read(name).count_rows())

    def _has_files(self, name: str) -> bool:
        if not is_remote(self.root):
            return any(Path(self.root, name).rglob("*.parquet"))
        from pyarrow import fs

        selector = fs.FileSelector(f"{bucket_path(self.root)}/{name}", recursive=True,
                                   allow_not_found=True)
        infos = self._store().filesystem().get_file_info(selector)
        return any(i.path.endswith(".parquet") for i in infos)

    def remove(self) -> None:
        """Delete every table (the run's end, successful or not)."""
        if not is_remote(self.root):
            shutil.rmtree(self.root, ignore_errors=True)
            return
        filesystem = self._store().filesystem()
        filesystem.delete_dir_contents(bucket_path(self.root), missing_dir_ok=True)
        try:
            filesystem.delete_dir(bucket_path(self.root))
        except OSError:
            pass  # object stores have no folders to delete

    def _store(self) -> ObjectStore:
        return self.store or ObjectStore.from_options()
