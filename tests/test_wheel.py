"""The wheel ships the SQL files: build it, install it into a fresh virtualenv, run it."""

from __future__ import annotations

import shutil
import site
import sqlite3
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

from conftest import ROOT, annotations, crawl_with_duplicates, write_pages


def source_tree(tmp_path: Path) -> Path:
    """A copy of the checkout's files that git knows or would add (tracked, or untracked and
    not ignored): setuptools reuses a checkout's ``build/`` folder, so a wheel built in place
    can carry files deleted or renamed since (two migrations of one number, once)."""
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
    )
    if listed.returncode != 0:  # not a git checkout (an unpacked sdist): as it is
        return ROOT
    src = tmp_path / "src"
    for name in filter(None, listed.stdout.decode().split("\0")):
        if (ROOT / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, src / name)
    return src


def test_wheel_installs_and_runs_from_a_fresh_virtualenv(tmp_path: Path):
    dist = tmp_path / "dist"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(source_tree(tmp_path)),
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-q",
            "-w",
            str(dist),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    (wheel,) = dist.glob("webdedup-*.whl")
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)  # ensurepip: offline
    py = env_dir / "bin" / "python"
    purelib = Path(
        subprocess.run(
            [py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    # Install the wheel with the fresh environment's own pip (offline)...
    subprocess.run(
        [py, "-m", "pip", "install", "--no-deps", "--no-index", "-q", str(wheel)],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    # ...and let the fresh environment see the already installed dependencies (not webdedup:
    # a path line in a .pth file does not run the editable-install hook of this checkout).
    dep_dirs = {
        sysconfig.get_paths()["purelib"],
        sysconfig.get_paths()["platlib"],
        *site.getsitepackages(),
    }
    (purelib / "deps.pth").write_text("\n".join(sorted(dep_dirs)) + "\n")
    # Run from tmp_path: the checkout must not be on sys.path (python -c puts the cwd first).
    where = subprocess.run(
        [py, "-c", "import webdedup; print(webdedup.__file__)"],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    ).stdout.strip()
    assert where.startswith(str(purelib)), where
    assert not where.startswith(str(ROOT))

    db = write_pages(tmp_path / "crawl.sqlite", crawl_with_duplicates(10))
    out = subprocess.run(
        [env_dir / "bin" / "webdedup", "db", str(db)],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert " groups (" in out.stdout and " duplicates (" in out.stdout
    assert any(v[3] is not None for v in annotations(db).values())

    # ingest with extraction (trafilatura and its dependencies, in extraction processes) from
    # the installed wheel: a dependency the wheel needs but does not get fails here
    ingested = tmp_path / "ingested.sqlite"
    out = subprocess.run(
        [env_dir / "bin" / "webdedup", "ingest", str(ingested),
         str(ROOT / "fixtures" / "sample-crawl.warc.gz"), "--workers", "2"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    assert "pages added" in out.stdout
    conn = sqlite3.connect(ingested)
    try:
        extracted = conn.execute(
            "SELECT count(*) FROM pages WHERE extraction = 'ok' AND length(content) > 200"
        ).fetchone()[0]
    finally:
        conn.close()
    assert extracted > 0
