"""``benchmarks/studies/kernel_ab.py`` (docs/benchmarks.md): the text kernels timed in two
checkouts, whose results must be the same."""

from __future__ import annotations

import re
import sqlite3

from benchmarks.studies import kernel_ab


def _corpus(path):
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, content TEXT)")
    texts = [f"Line one of page {p}, some Words\nand a second  line \u2014 caf\u00e9 {p}"
             for p in range(40)]
    conn.executemany("INSERT INTO pages (content) VALUES (?)", [(t,) for t in texts])
    conn.commit()
    conn.close()


def test_every_child_gives_the_same_results(tmp_path, capsys):
    corpus = tmp_path / "pages.sqlite"
    _corpus(corpus)
    code = kernel_ab.main(["--tree", str(kernel_ab.ROOT), "--corpus", str(corpus),
                           "--rounds", "1", "--children", "2"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "40 texts" in out
    for kernel in ("normalize", "lengths", "shingles"):
        assert re.search(rf"{kernel} [\d.]+ ns/B", out), kernel
    assert re.search(r"coverage [\d.]+ us, verify [\d.]+ us", out)
    assert "results: the same in every checkout" in out


def test_different_results_are_told(monkeypatch, capsys, tmp_path):
    """A child whose kernels answered otherwise makes the study fail (a digest differs)."""
    corpus = tmp_path / "pages.sqlite"
    _corpus(corpus)
    real = kernel_ab.child
    calls: list[int] = []

    def child(code, *args, **kw):
        out = real(code, *args, **kw)
        calls.append(1)
        if len(calls) == 3:  # (the first child of a side, not counted, compiles)
            out["kernels"]["verify"]["digest"] = "different"
        return out

    monkeypatch.setattr(kernel_ab, "child", child)
    code = kernel_ab.main(["--tree", str(kernel_ab.ROOT), "--corpus", str(corpus),
                           "--rounds", "1", "--children", "2"])
    assert code == 1
    assert "results: DIFFER" in capsys.readouterr().out
