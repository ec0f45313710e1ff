"""The input of ``webdedup daft``: the pages of Parquet files under webdedup's column names,
checked (ids present and unique), and the reviewers' verdicts they carry."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

from ..config import Config
from ..errors import InputError, MissingColumn
from ..store.pages import PageInput, as_text
from ..store.verdicts import Verdicts

#: The page id column of the Parquet input (``webdedup export --parquet`` writes it).
ID_COLUMN = "id"
#: The column Daft fills with each row's file (to name the files of a repeated id).
FILE_COLUMN = "_webdedup_file"


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
        df = daft.read_parquet(paths, io_config=io_config, file_path_column=FILE_COLUMN)
        names = [n for n in df.column_names if n != FILE_COLUMN]
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
        col(FILE_COLUMN),
    )
    return df, names


def check_ids(pages: Any, pages_per_part: int = 1_000_000) -> int:
    """The number of pages; raise when there are none or an id repeats (naming its files).

    The ids are counted a part at a time (ids hashed into parts of about ``pages_per_part``),
    so that the count holds a part's ids, not the crawl's; the files of a repeated id are
    looked up only when there is one.
    """
    from daft import col, lit

    from .scratch import in_part

    total = int(pages.count_rows())
    if total == 0:
        raise InputError("the Parquet input has no pages (0 rows): nothing to deduplicate")
    no_id = int(pages.where(col("id").is_null()).count_rows())
    if no_id:
        raise InputError(
            f"{no_id:,} page(s) of the Parquet input have no integer {ID_COLUMN!r} (null, or "
            "text that is not a number); every page needs an integer id"
        )
    parts = -(-total // pages_per_part)
    repeated: list[int] = []
    for k in range(parts):
        counts = (
            pages.select("id").where(in_part("id", k, parts))
            .groupby("id").agg(col("id").count().alias("n"))
            .where(col("n") > lit(1))
        )
        repeated += [int(r["id"]) for r in counts.limit(5).to_pylist()]
        if len(repeated) >= 5:
            break
    if repeated:
        rows = (
            pages.where(col("id").is_in(repeated[:5]))
            .groupby("id")
            .agg(col("id").count().alias("n"), col(FILE_COLUMN).list_agg_distinct().alias("files"))
            .sort("id")
            .to_pylist()
        )
        shown = "; ".join(
            f"id {r['id']} ({r['n']} times, in {', '.join(sorted(r['files']))})" for r in rows
        )
        raise InputError(
            f"page ids repeat in the Parquet input: {shown}. Each page needs its own id over "
            "all files (a crawler's shards must number their pages apart)"
        )
    return total


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
    return Verdicts(pins, frozenset(apart))


def _value(v: Any) -> Any:
    """A Parquet cell as the SQLite path reads it: timestamps as ISO text, BLOBs as text."""
    if isinstance(v, (datetime, date)):
        return v.isoformat()
    return as_text(v)


def page_input(row: Sequence[Any]) -> PageInput:
    pid, url, content, html, dt, crawled, category, lang = row
    return PageInput(
        int(pid), as_text(url), as_text(content), html, _value(dt), _value(crawled),
        as_text(category), as_text(lang),
    )
