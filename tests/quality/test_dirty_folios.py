"""``benchmarks/studies/dirty_folios.py`` (docs/benchmarks.md): the bytes Linux counts for a
process's writes, against the disk's; and ``bench_scale``'s count of the disk's bytes."""

from __future__ import annotations

import os
import re

import pytest

from benchmarks.speed.bench_scale import device_written, run_devices
from benchmarks.studies import dirty_folios


def _on_a_disk(path) -> None:
    if device_written(path) is None:  # tmpfs and the like: Linux counts no bytes there
        pytest.skip(f"{path} is on no block device: nothing to count")


def test_both_ways_are_printed_and_the_file_removed(tmp_path, capsys):
    _on_a_disk(tmp_path)
    assert dirty_folios.main(["--work", str(tmp_path), "--mib", "4", "--writes", "20"]) == 0
    out = capsys.readouterr().out
    lines = re.findall(r"^  (not in the page cache|after reading it whole) +counted +([\d.,]+) "
                       r"MiB, on the disk ([\d.,]+) MiB$", out, re.M)
    assert [line[0] for line in lines] == ["not in the page cache", "after reading it whole"]
    for _, count, disk in lines:  # 20 blocks, each its own page, each written to the disk
        assert float(count.replace(",", "")) >= 20 * 4096 / 2**20
        assert float(disk.replace(",", "")) >= 20 * 4096 / 2**20
    assert list(tmp_path.iterdir()) == []


def test_the_disks_bytes_grow_by_what_a_file_wrote(tmp_path):
    _on_a_disk(tmp_path)
    before = device_written(*run_devices(tmp_path))
    with (tmp_path / "f.bin").open("wb") as f:
        f.write(os.urandom(2**20))
        f.flush()
        os.fsync(f.fileno())
    assert device_written(*run_devices(tmp_path)) - before >= 2**20


def test_a_device_is_counted_once():
    here = os.path.dirname(__file__)
    one = device_written(here)
    assert (one is None) == (device_written(here, here) is None)
    if one is not None:  # the same device twice: counted once (the counter moves: about)
        assert abs(device_written(here, here) - one) < 2**30
