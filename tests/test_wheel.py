"""The wheel ships the SQL files: build it, install it into a fresh virtualenv, run it."""

from __future__ import annotations

import json
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


def _declared() -> tuple[list[str], list[str]]:
    """pyproject's dependencies, and every optional dependency (all extras together)."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    optional = [r for reqs in project["optional-dependencies"].values() for r in reqs]
    return project["dependencies"], optional


def _closure(requirements: list[str]) -> set[str]:
    """The distributions these requirements install, following the extras they name but not
    the extras that their own dependencies ask for: a module webdedup's code paths need must
    not come only through another package's extra (a jusText that asks for plain lxml, or a
    distribution's lxml, come without lxml's html_clean part)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import requires as dist_requires

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    found: set[str] = set()
    todo = [(Requirement(r), True) for r in requirements]
    while todo:
        req, own = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        name = canonicalize_name(req.name)
        extras = req.extras if own else set()
        key_extras = {canonicalize_name(e) for e in extras}
        if name in found and not key_extras:
            continue
        found.add(name)
        try:
            subs = dist_requires(name) or []
        except PackageNotFoundError:
            continue
        for line in subs:
            sub = Requirement(line)
            if sub.marker is None or sub.marker.evaluate({"extra": ""}):
                todo.append((sub, False))
            elif any(sub.marker.evaluate({"extra": e}) for e in key_extras):
                sub.marker = None
                todo.append((sub, False))
    return found


def _distributions(modules: set[str]) -> dict[str, set[str]]:
    """Third-party top-level module -> the distributions that provide it."""
    from importlib.metadata import packages_distributions

    from packaging.utils import canonicalize_name

    providers = packages_distributions()
    skip = set(sys.stdlib_module_names) | {"webdedup", "__main__", "_distutils_hack"}
    return {
        m: {canonicalize_name(d) for d in providers[m]}
        for m in modules
        if m not in skip and not m.startswith("_") and m in providers
    }


#: Run in a fresh process: only the distributions named in argv[1] (and the standard library,
#: and webdedup) can be imported, as in a fresh install of webdedup's declared dependencies;
#: then the extraction stack is set up and extracts a real page.
_DECLARED_ONLY = """
import gzip, json, sys
from importlib.metadata import packages_distributions

allowed = set(json.loads(sys.argv[1]))
providers = packages_distributions()


def canonical(name):
    return name.lower().replace("_", "-").replace(".", "-")


class DeclaredOnly:
    def find_spec(self, name, path=None, target=None):
        top = name.partition(".")[0]
        dists = {canonical(d) for d in providers.get(top, ())}
        if dists and top != "webdedup" and not dists & allowed:
            raise ModuleNotFoundError(f"No module named {top!r} (not installed by "
                                      "webdedup's dependencies)", name=top)
        return None


sys.meta_path.insert(0, DeclaredOnly())
from webdedup.ingest.extract_pool import extract_one, extraction_setup

extraction_setup()
html = gzip.decompress(open(sys.argv[2], "rb").read()).decode("utf-8", "replace")
text, title, date = extract_one((html, "https://example.org/a", True))
assert len(text) > 200, text
print(sorted({m.partition(".")[0] for m in sys.modules}))
"""


def test_the_extraction_stack_comes_from_declared_dependencies(tmp_path: Path):
    """In this environment, narrowed to what webdedup's own dependencies install (see
    ``_closure``), the extraction stack imports and extracts: trafilatura, jusText, and
    the lxml cleaner jusText imports (the module a fresh install once lacked)."""
    required, _ = _declared()
    allowed = sorted(_closure(required))
    assert "lxml-html-clean" in allowed
    out = subprocess.run(
        [sys.executable, "-c", _DECLARED_ONLY, json.dumps(allowed), str(_a_real_page())],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "lxml_html_clean" in out.stdout  # jusText's cleaner did load


def test_every_module_webdedup_imports_is_declared():
    """A third-party module named in an import of webdedup's own code comes from a
    distribution pyproject.toml names itself (a dependency or an optional one)."""
    import ast

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    imported: set[str] = set()
    for path in (ROOT / "webdedup").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                imported |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    required, optional = _declared()
    named = {canonicalize_name(Requirement(r).name) for r in required + optional}
    loaded = _distributions(imported)
    missing = {m: d for m, d in loaded.items() if not d & named}
    assert not missing, f"imported by webdedup but not named in pyproject: {missing}"


def _a_real_page() -> Path:
    from conftest import SHARED_DATA

    return sorted((SHARED_DATA / "html" / "aeb").glob("*.html.gz"))[0]
