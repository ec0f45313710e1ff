"""benchmarks/studies/band_memory.py: the band collisions of before and after, measured in
child processes, find the same pairs."""

from __future__ import annotations

from benchmarks.studies import band_memory


def test_before_and_after_find_the_same_pairs(capsys):
    assert band_memory.main(["--rows", "30000"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0].strip() for line in lines] == ["before", "after"]
    pairs = {line.split(" pairs")[0].rsplit(", ", 1)[1] for line in lines}
    assert len(pairs) == 1 and pairs != {"0"}
