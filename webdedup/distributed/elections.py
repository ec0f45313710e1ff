"""The elections of ``webdedup daft``: ``row_number()`` over a window ordered as
:mod:`webdedup.algorithms.election` orders the SQLite path's elections."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..algorithms.election import ELECTION_KEYS, validate_election


def election_window(partition: str, keys: Sequence[str], pinned: bool = False) -> Any:
    """The window ``PARTITION BY partition ORDER BY <election>``, built from the keys of
    :data:`~webdedup.algorithms.election.ELECTION_KEYS` as ``order_by_sql`` builds the SQL
    one; ``pinned``: the pages reviewers chose as canonical first, by ``pin_rank``
    (``RunContext.election_sql``)."""
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
    partition's first row by the election order (reviewers' choices first when ``pinned``)."""
    from daft import col
    from daft.functions import row_number

    window = election_window(partition, keys, pinned)
    ranked = df.with_column(rank, row_number().over(window))
    winners = ranked.where(col(rank) == 1).select(
        col(partition).alias("_p"), col("id").alias(winner)
    )
    return ranked.join(winners, left_on=partition, right_on="_p").select("id", rank, winner)
