"""``benchmarks/studies/dirty_folios.py`` (docs/benchmarks.md): the bytes Linux counts for a
process's writes, against the disk's."""

from __future__ import annotations

import re

from benchmarks.studies import dirty_folios


def test_both_ways_are_printed_and_the_file_removed(tmp_path, capsys):
    assert dirty_folios.main(["--work", str(tmp_path), "--mib", "4", "--writes", "20"]) == 0
    out = capsys.readouterr().out
    lines = re.findall(r"^  (not in the page cache|after reading it whole) +counted +([\d.,]+) "
                       r"MiB, on the disk (.+)$", out, re.M)
    assert [line[0] for line in lines] == ["not in the page cache", "after reading it whole"]
    counts = [float(count.replace(",", "")) for _, count, _ in lines]
    # each rewritten block dirtied at least its own page, where Linux counts (not on tmpfs)
    assert all(c >= 20 * 4096 / 2**20 for c in counts) or counts == [0, 0]
    assert all(disk == "not known here" or disk.endswith(" MiB") for _, _, disk in lines)
    assert list(tmp_path.iterdir()) == []


def test_the_disks_bytes_grow_by_what_a_file_wrote(tmp_path):
    import os

    from benchmarks.speed.bench_scale import device_written

    before = device_written(tmp_path)
    if before is None:  # no block device under it (tmpfs, overlay): nothing to count
        assert device_written(tmp_path) is None
        return
    path = tmp_path / "f.bin"
    with path.open("wb") as f:
        f.write(os.urandom(2**20))
        f.flush()
        os.fsync(f.fileno())
    assert device_written(tmp_path) - before >= 2**20
