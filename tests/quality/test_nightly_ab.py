"""``benchmarks/studies/nightly_ab.py`` (docs/benchmarks.md): incremental runs of two
checkouts, alternating, on one annotated database that grows by the added pages."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from benchmarks.studies import nightly_ab
from tests.conftest import make_page, real_texts, write_pages
from webdedup import Config, Deduplicator

REPO = Path(__file__).resolve().parents[2]


def test_each_side_runs_incrementally_in_turn_on_the_growing_database(tmp_path, capsys):
    texts = [t["text"] for t in real_texts(limit=80)]
    pages = [make_page(f"https://a{i % 4}.example/p{i}", t) for i, t in enumerate(texts)]
    db = write_pages(tmp_path / "crawl.sqlite", pages)
    Deduplicator(config=Config()).run_on_db(db)

    assert nightly_ab.main([str(db), "--tree", str(REPO), "--rounds", "2", "--new", "7"]) == 0
    out = capsys.readouterr().out
    conn = sqlite3.connect(db)
    (n,) = conn.execute("SELECT count(*) FROM pages").fetchone()
    modes = [m for (m,) in conn.execute("SELECT mode FROM _webdedup_runs ORDER BY id")]
    copies = conn.execute("SELECT count(*) FROM pages WHERE url LIKE '%?copy=%'").fetchone()[0]
    conn.close()
    assert n == len(pages) + 3 * 7 and copies == 3 * 7  # a warm-up run, then two
    assert modes == ["full"] + ["incremental"] * 3
    lines = out.splitlines()
    assert [ln.split(":")[0] for ln in lines if " CPU-s, " in ln] == [
        f"warm-up {REPO}", f"round 1 {REPO}", f"round 2 {REPO}"]
    (median,) = [ln for ln in lines if ln.startswith(f"{REPO}: median")]
    assert "over 2 runs" in median


def test_a_revision_is_checked_out_with_its_sql_and_removed_afterwards():
    with nightly_ab.ExitStack() as stack:
        tree = nightly_ab.checkout("HEAD", stack)
        nightly_ab.check_imports(tree)  # the package and its SQL from the checkout
        assert (tree / "webdedup" / "sql" / "counts.sql").is_file()
    assert not tree.exists()
    listed = nightly_ab.subprocess.run(["git", "-C", str(REPO), "worktree", "list"],
                                       capture_output=True, text=True, check=True).stdout
    assert str(tree) not in listed


def test_a_side_that_imports_another_checkouts_package_is_refused(tmp_path):
    other = tmp_path / "tree"
    other.mkdir()  # no package of its own: the child would import the installed one
    try:
        nightly_ab.check_imports(other)
    except SystemExit as e:
        assert "not the checkout's own" in str(e)
    else:
        raise AssertionError("a checkout without the package was accepted")


def test_a_runs_figures_hold_its_bytes_written_by_phase(tmp_path):
    """The child is ``bench_scale``'s: its writes by phase (the main process's) add up to no
    more than the process's own."""
    texts = [t["text"] for t in real_texts(limit=40)]
    db = write_pages(tmp_path / "crawl.sqlite",
                     [make_page(f"https://a.example/p{i}", t) for i, t in enumerate(texts)])
    Deduplicator(config=Config()).run_on_db(db)
    nightly_ab.add_pages(db, 5, seed=1)
    r = nightly_ab.nightly(REPO, db)
    assert r["mode"] == "incremental" and r["processed"] >= 5
    by_phase = r["phase_written_bytes"]
    assert by_phase and set(by_phase) <= set(r["phase_peaks_mib"]) | {"start", "end"}
    assert 0 < sum(by_phase.values()) <= r["write_bytes"]
