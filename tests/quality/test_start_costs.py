"""``benchmarks/studies/start_costs.py`` (docs/benchmarks.md): URL keys both ways, numba's
start both ways."""

from __future__ import annotations

import re
import sqlite3

from benchmarks.studies import start_costs


def test_both_costs_are_printed(tmp_path, capsys):
    corpus = tmp_path / "pages.sqlite"
    conn = sqlite3.connect(corpus)
    conn.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, url TEXT)")
    conn.executemany("INSERT INTO pages (url) VALUES (?)",
                     [("https://a.example/x",), ("HTTP://A.example/y",), ("/relative",)])
    conn.commit()
    conn.close()
    assert start_costs.main(["--corpus", str(corpus), "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert "the first 3 URLs of pages.sqlite" in out
    assert re.search(r"canonicalize_url +[\d.]+ us a URL, the rules alone +[\d.]+ us "
                     r"\(33 % plain\)", out)  # one of the three is plain
    assert re.search(r"probe answered [\d.]+ s, probed as numba does [\d.]+ s", out)


def test_the_probed_side_loads_scipy_and_the_other_does_not():
    import subprocess
    import sys

    for side, loaded in (("answered", "False"), ("probed", "True")):
        out = subprocess.run([sys.executable, "-c", start_costs.START, side],
                             capture_output=True, text=True, check=True,
                             cwd=start_costs.ROOT).stdout.split()
        assert out[1] == loaded, side
