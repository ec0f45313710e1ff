"""The README opens for users, and the commands of its task guide run as written.

The task guide's TOML is written to ``webdedup.toml``, the demo crawl (fixtures/) is put into
a table of other names (``documents``: ``link``, ``body``, ``fetched_at``), and every
``webdedup`` line of the guide's ``sh`` blocks, and the command of its crontab line, run in
order in that folder.
"""

from __future__ import annotations

import re
import shlex
import sqlite3
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import FIXTURES, ROOT

from webdedup.config import Columns
from webdedup.ingest import ingest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - webdedup depends on tomli there
    import tomli as tomllib

README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def section(title: str) -> str:
    start = README.index(f"\n## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start:end]


def commands(text: str) -> list[list[str]]:
    """The ``webdedup`` command lines of the ``sh`` blocks, and the crontab line's command."""
    out = []
    for lang, body in BLOCK.findall(text):
        for line in body.splitlines():
            if lang == "sh" and line.startswith("webdedup "):
                out.append(shlex.split(line, comments=True))
            elif lang == "" and "flock -n " in line:  # the crontab line
                cron = line.split("flock -n ", 1)[1].split(">>", 1)[0]
                out.append(shlex.split(cron)[1:])  # after the lock file
    return out


def test_the_readme_is_a_front_page() -> None:
    """At most ~250 lines, no dated measurements and no commit hashes: those live in the
    manual (docs/), which the README links into."""
    assert len(README.splitlines()) <= 250
    assert not re.search(r"`[0-9a-f]{7,40}`", README)  # a commit hash
    assert not re.search(r"\b20[0-9]{2}-[01][0-9]-[0-3][0-9]\b", README)  # a date
    assert not re.search(r"load average", README)
    for link in re.findall(r"\]\((docs/[^)#]+)", README):
        assert (ROOT / link).exists(), link


def test_the_readme_opens_with_a_plain_install_and_the_task_guide() -> None:
    headings = re.findall(r"^## (.+)$", README, re.MULTILINE)
    assert headings[:3] == ["Install", "Quick start", "Task guide"]
    first = BLOCK.search(section("Install"))
    assert first is not None and first.group(2).startswith("pip install .")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert not any(d.startswith(("pytest", "ruff", "mypy", "hypothesis"))
                   for d in project["dependencies"])  # test tools only in the [test] extra
    guide = section("Task guide")
    for topic in ("Map my table", "Run nightly from cron", "Review", "Prune and restore",
                  "webdedup review", "Exit codes", "The lock"):
        assert topic in guide, topic


@pytest.fixture
def documents(tmp_path: Path) -> Path:
    """The demo crawl in a table named as the task guide's TOML names it."""
    toml = next(body for lang, body in BLOCK.findall(section("Task guide")) if lang == "toml")
    (tmp_path / "webdedup.toml").write_text(toml, encoding="utf-8")
    mapping = tomllib.loads(toml)["columns"]
    db = tmp_path / "crawl.sqlite"
    ingest(db, [FIXTURES / "sample-crawl.jsonl.gz"], columns=Columns.from_mapping(mapping),
           workers=1)
    return db


def test_the_task_guide_commands_run_as_written(documents: Path, monkeypatch) -> None:
    from webdedup.cli import cli

    monkeypatch.chdir(documents.parent)
    with sqlite3.connect(documents) as conn:
        before = conn.execute("SELECT count(*) FROM documents").fetchone()[0]
    ran = commands(section("Task guide"))
    assert [c[:2] for c in ran] == [
        ["webdedup", "db"], ["webdedup", "stats"], ["webdedup", "db"],
        ["webdedup", "export"], ["webdedup", "export"], ["webdedup", "explain"],
        ["webdedup", "db"], ["webdedup", "restore"],
    ]
    for argv in ran:
        res = CliRunner().invoke(cli, argv[1:], catch_exceptions=False)
        assert res.exit_code == 0, (argv, res.output)
    with sqlite3.connect(documents) as conn:
        modes = [m for (m,) in conn.execute("SELECT mode FROM _webdedup_runs ORDER BY id")]
        after = conn.execute("SELECT count(*) FROM documents").fetchone()[0]
    # the nightly line (with --config) is incremental after the first run; prune + restore
    # leave every page in place
    assert modes[:2] == ["full", "incremental"] and after == before
    assert (documents.parent / "review.html").exists()


def test_the_picture_of_the_result_is_what_a_run_gives(tmp_path: Path) -> None:
    """The rows the README shows are those a run on the bundled sample crawl writes."""
    from webdedup import Deduplicator

    picture = BLOCK.search(README)
    assert picture is not None and picture.group(2).startswith("id  url")
    rows = [line.split() for line in picture.group(2).splitlines()[2:]]
    db = tmp_path / "sample.sqlite"
    ingest(db, [FIXTURES / "sample-crawl.warc.gz"], workers=1)
    Deduplicator(discard_params=False, urls_to_ignore=[]).run_on_db(db)
    with sqlite3.connect(db) as conn:
        for row in rows:
            page_id, url, group, canonical = row[0], row[1], row[2], row[3]
            kind = row[4] if len(row) == 6 else None
            got = conn.execute(
                "SELECT url, dup_group, canonical_id, dup_kind, round(dup_score, 2) "
                "FROM pages WHERE id = ?", (int(page_id),)
            ).fetchone()
            assert got[0].startswith(url), row
            assert (got[1], got[2], got[3], got[4]) == (
                int(group), int(canonical), kind, float(row[-1])
            ), row
    conn.close()
