"""The elections of ``webdedup daft``: ``row_number()`` over a window ordered as
:mod:`webdedup.algorithms.election` orders the SQLite path's elections."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..algorithms.election import ELECTION_KEYS, sort_key, validate_election


def election_window(partition: str, keys: Sequence[str], pinned: bool = False) -> Any:
    """The window ``PARTITION BY partition ORDER BY <election>``, built from the keys of
    :data:`~webdedup.algorithms.election.ELECTION_KEYS` as ``order_by_sql`` builds the SQL
    one; ``pinned``: the pages reviewers chose as canonical first, by ``pin_rank``
    (``pipeline.context.election_sql``)."""
    from daft import Window, col

    exprs: list[Any] = []
    desc: list[bool] = []

    def nulls_last_then(column: str, descending: bool) -> None:
        exprs.extend([col(column).is_null(), col(column)])
        desc.extend([False, descending])

    if pinned:
        nulls_last_then("pin_rank", False)

    for key in validate_election(keys):
        rule = ELECTION_KEYS[key]
        if rule.nullable:
            nulls_last_then(rule.column, rule.descending)
        else:
            exprs.append(col(rule.column))
            desc.append(rule.descending)
    return Window().partition_by(partition).order_by(*exprs, desc=desc)


def elect(
    df: Any, partition: str, keys: Sequence[str], rank: str, winner: str, pinned: bool = False
) -> Any:
    """``id, <rank>, <winner>`` of each row of ``df``: its rank in its partition and the
    partition's first row by the election order (reviewers' choices first when ``pinned``).

    A partition of one row (most of them: most URLs and texts are unique) ranks it first
    without sorting; the rows of larger partitions are gathered a partition to a list and
    sorted by :func:`~webdedup.algorithms.election.sort_key`, the Python order that equals
    the SQL window's (:func:`election_window`: Daft's window keeps a state of several KiB a
    partition, a GiB for 100,000 URL keys, where this keeps the rows)."""
    from daft import DataType as DT
    from daft import col, lit
    from daft.functions import to_struct

    sizes = df.groupby(partition).agg(col("id").count().alias("_n"))
    alone = df.join(sizes.where(col("_n") == lit(1)).select(partition), on=partition).select(
        "id", lit(1).cast(DT.uint64()).alias(rank), col("id").alias(winner)
    )
    shared = df.join(sizes.where(col("_n") > lit(1)).select(partition), on=partition)
    columns = sorted({"id", *(ELECTION_KEYS[k].column for k in validate_election(keys))}
                     | ({"pin_rank"} if pinned else set()))
    order = rank_udf(keys, pinned)
    ranked = (
        shared.groupby(partition)
        .agg(to_struct(*map(col, columns)).list_agg().alias("_rows"))
        .select(order(col("_rows")).alias("_r"))
        .explode("_r")
        .select(
            col("_r")["id"].alias("id"),
            col("_r")["rank"].alias(rank),
            col("_r")["winner"].alias(winner),
        )
    )
    return alone.concat(ranked)


def rank_udf(keys: Sequence[str], pinned: bool) -> Any:
    """A UDF: a partition's rows (structs of the columns the keys read) -> each one's id,
    rank and the partition's winner, in the election order (chosen canonicals first when ``pinned``:
    ``coalesce(pin_rank, n) ASC`` as ``pipeline.context.election_sql``)."""
    import daft
    import pyarrow as pa
    from daft import DataType as DT

    election = sort_key(keys)
    arrow_type = pa.list_(
        pa.struct([("id", pa.int64()), ("rank", pa.uint64()), ("winner", pa.int64())])
    )

    def order_key(row: _Row) -> tuple[Any, ...]:
        pin = getattr(row, "pin_rank", None) if pinned else None
        return (pin is None, pin or 0, *election(row))

    @daft.func(return_dtype=DT.from_arrow_type(arrow_type))
    def ranks(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        ordered = sorted((_Row(r) for r in rows), key=order_key)
        first = ordered[0].id
        return [{"id": r.id, "rank": k, "winner": first} for k, r in enumerate(ordered, 1)]

    return ranks


class _Row:
    """A row of a partition, its columns as attributes (what the election keys read)."""

    id: int

    def __init__(self, values: dict[str, Any]) -> None:
        self.__dict__.update(values)
