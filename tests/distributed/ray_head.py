"""A local Ray cluster for tests/distributed/test_daft.py: 2 CPUs on this machine, no dashboard.

Prints the head's address on its first line, then keeps the cluster up until its standard
input closes, and shuts it down.
"""

from __future__ import annotations

import sys

import ray


def main() -> None:
    context = ray.init(num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1")
    print(context.address_info["gcs_address"], flush=True)
    try:
        sys.stdin.read()
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
