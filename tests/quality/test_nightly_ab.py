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
    copies = [u for (u,) in conn.execute("SELECT url FROM pages WHERE url LIKE '%?copy=%'")]
    conn.close()
    assert n == len(pages) + 3 * 7 and len(copies) == 3 * 7  # a warm-up run, then two
    # each run copies other pages (not the last run's again, under the same URLs)
    sources = [u.rpartition("-")[2] for u in copies]
    assert len(set(copies)) == len(copies) and len(set(sources)) >= 3 * 7 - 3
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



def test_with_copies_each_side_runs_on_its_own_copy_given_the_same_pages(
    tmp_path, capsys, monkeypatch
):
    """--copies: the database itself is not written; each side's copy gets the same new pages
    each round (the copies are removed at the end). Two sides of one checkout here."""
    texts = [t["text"] for t in real_texts(limit=60)]
    pages = [make_page(f"https://a{i % 4}.example/p{i}", t) for i, t in enumerate(texts)]
    db = write_pages(tmp_path / "crawl.sqlite", pages)
    Deduplicator(config=Config()).run_on_db(db)
    other = tmp_path / "other"
    other.symlink_to(REPO)  # the same checkout under another name: a second side
    copies = tmp_path / "copies"
    copies.mkdir()
    seen: dict[str, list[set[str]]] = {}
    real_nightly = nightly_ab.nightly

    def nightly(tree, path):  # what each side's copy holds when it runs
        conn = sqlite3.connect(path)
        urls = {u for (u,) in conn.execute("SELECT url FROM pages WHERE url LIKE '%?copy=%'")}
        conn.close()
        seen.setdefault(str(tree), []).append(urls)
        return real_nightly(tree, path)

    monkeypatch.setattr(nightly_ab, "nightly", nightly)
    assert nightly_ab.main([str(db), "--tree", str(REPO), "--tree", str(other), "--rounds",
                            "2", "--new", "5", "--copies", str(copies)]) == 0
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT count(*) FROM pages").fetchone()[0] == len(pages)  # untouched
    conn.close()
    assert list(copies.iterdir()) == []
    a, b = seen[str(REPO)], seen[str(other)]
    assert len(a) == len(b) == 3 and a == b and len(a[-1]) == 3 * 5
    assert "over 2 runs" in capsys.readouterr().out
