#!/usr/bin/env python3
"""Peak memory a candidate pair of phase 4's pair ordering, before and after ``df4c4da``.

    python -m benchmarks.studies.pair_memory              # 6,800,000 pairs (3M pages' worth)
    python -m benchmarks.studies.pair_memory --pairs 1000000

Synthetic pairs (``lo`` and ``hi`` page ids, components of a few pages), ordered by
component as ``_banded_run`` orders its candidates and then taken in that order: the
ordering of before (``np.unique``'s inverse and ``lexsort``'s copy, written out below as it
was) against :func:`webdedup.algorithms.bands.component_order`. Prints the peak that
``tracemalloc`` saw (numpy's arrays included) per pair, and checks both give one order.
"""

from __future__ import annotations

import argparse
import tracemalloc
from collections.abc import Callable

import numpy as np

from webdedup.algorithms import bands


def order_before(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """``component_order`` as it was before ``df4c4da``."""
    _, inverse = np.unique(np.concatenate([lo, hi]), return_inverse=True)
    a, b = inverse[: len(lo)], inverse[len(lo):]
    label, _ = bands._component_labels(a, b, int(inverse.max()) + 1)
    return np.lexsort((hi, lo, np.asarray(label[a], np.int64))).astype(np.int64)


def peak(order: Callable[[np.ndarray, np.ndarray], np.ndarray], lo: np.ndarray,
         hi: np.ndarray) -> tuple[int, np.ndarray]:
    tracemalloc.start()
    got = order(lo, hi)
    first, second = lo[got], hi[got]  # what _banded_run does next
    _, top = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del first, second
    return top, got


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=6_800_000)
    parser.add_argument("--seed", type=int, default=1)
    n = parser.parse_args().pairs
    rng = np.random.default_rng(parser.parse_args().seed)
    lo = rng.integers(0, 3 * n // 7, n) * 3
    hi = lo + rng.integers(1, 200, n) * 3
    results = {}
    for name, order in (("before", order_before), ("after", bands.component_order)):
        top, got = peak(order, lo, hi)
        results[name] = got
        print(f"{name:>6}: peak {top / n:5.1f} bytes a pair ({top / 2**20:,.0f} MiB for "
              f"{n:,} pairs)")
    print("the same order:", bool((results["before"] == results["after"]).all()))


if __name__ == "__main__":
    main()
