"""The package reads like the pipeline: imports only point down, and no module imports
itself back through another (the README's "Code map" describes the layers)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import webdedup

PACKAGE = Path(webdedup.__file__).parent

#: Each top-level unit of the package and its layer: a module may import its own unit and
#: lower layers only.
LAYERS = {
    "errors": -1,  # below everything: every layer raises webdedup's own errors
    "version": 0,
    "parallel": 0,
    "progress": 0,
    "words": 0,
    "algorithms": 1,
    "config": 2,
    "store": 3,
    "incremental": 4,
    "pipeline": 5,
    "output": 6,
    "distributed": 6,
    "ingest": 7,  # pages into SQLite, or as Parquet through distributed's export
    "api": 7,
    "review": 7,
    "cli": 8,
    "reference": 9,  # the manual's generated pages, made from the CLI and the config
    "": 9,  # webdedup/__init__.py
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    """Only a plain ``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``) guards an import."""
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _type_checking_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def imports_in(source: str, name: str, is_package: bool, types: bool = False) -> set[str]:
    """Every webdedup module that ``source`` (module ``name``) imports at run time, function-
    level imports and ``importlib.import_module("webdedup....")`` calls included; with
    ``types``, the imports under ``if TYPE_CHECKING:`` too (a module that names another in
    its annotations depends on it, even if not at run time)."""
    package = name if is_package else name.rpartition(".")[0]
    tree = ast.parse(source)
    skip = set() if types else _type_checking_lines(tree)
    found: set[str] = set()
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip:
            continue
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("webdedup"):
                continue
            for alias in node.names:  # `from . import phase1_prepare` names modules
                sub = f"{target}.{alias.name}"
                found.add(sub if _exists(sub) else target)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("webdedup"))
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", None)) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and str(node.args[0].value).startswith("webdedup")
        ):
            found.add(str(node.args[0].value))
    found.discard(name)
    return found


def imports_of(path: Path, types: bool = False) -> set[str]:
    return imports_in(
        path.read_text(encoding="utf-8"), module_name(path), path.name == "__init__.py", types
    )


def _exists(module: str) -> bool:
    rel = Path(*module.split(".")[1:])
    return (PACKAGE / rel).with_suffix(".py").exists() or (PACKAGE / rel / "__init__.py").exists()


def unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def graph(types: bool = False) -> dict[str, set[str]]:
    """Each module's imports: at run time, or (``types``) those for type checking too."""
    return {module_name(p): imports_of(p, types) for p in sorted(PACKAGE.rglob("*.py"))}


def test_every_unit_has_a_layer():
    assert {unit(m) for m in graph()} <= set(LAYERS)


def upward_imports(g: dict[str, set[str]]) -> list[str]:
    return [
        f"{m} -> {t}"
        for m, targets in g.items()
        for t in targets
        if unit(t) != unit(m) and LAYERS[unit(t)] >= LAYERS[unit(m)]
    ]


def test_imports_only_point_down():
    """Type-checking imports included: the pure algorithms name no configuration at all."""
    assert upward_imports(graph(types=True)) == []


def test_no_import_cycle():
    g = graph()
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(g.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(path[path.index(nxt) :] + [nxt] if nxt in path else [node, nxt])
            elif nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for start in sorted(g):
        if start not in state:
            visit(start, [start])
    assert cycles == []


@pytest.mark.parametrize(
    "source",
    [
        "from ..pipeline import run\n",
        "def f():\n    from ..pipeline.run import run_on_db\n",
        "import typing\nif not typing.TYPE_CHECKING:\n    from ..pipeline import run\n",
        "import importlib\nrun = importlib.import_module('webdedup.pipeline.run')\n",
    ],
)
def test_the_checker_sees_an_upward_import(source):
    """The layering test can fail: a store module importing the pipeline is caught, however
    it imports it."""
    g = graph()
    g["webdedup.store.probe"] = imports_in(source, "webdedup.store.probe", is_package=False)
    assert upward_imports(g) == ["webdedup.store.probe -> webdedup.pipeline.run"]


def test_a_type_checking_import_is_not_a_runtime_import():
    source = (
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..config import Config\n"
    )
    assert imports_in(source, "webdedup.algorithms.probe", is_package=False) == set()


def test_the_checker_sees_an_upward_type_checking_import():
    """An import for annotations alone still points up: algorithms naming ``Config`` under
    ``if TYPE_CHECKING:`` fails the layering."""
    source = (
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..config import Config\n"
    )
    g = graph(types=True)
    g["webdedup.algorithms.probe"] = imports_in(
        source, "webdedup.algorithms.probe", is_package=False, types=True
    )
    assert upward_imports(g) == ["webdedup.algorithms.probe -> webdedup.config"]


#: Standard modules that read or write files, databases or sockets: the pure layer
#: (``webdedup/algorithms/``, README "Code map") imports none of them, so its file I/O
#: lives in the store (e.g. ``store/spool.py``, the temporary file of ``--method vectors``).
IO_MODULES = {"os", "io", "tempfile", "shutil", "pathlib", "sqlite3", "subprocess", "socket"}


def io_imports(source: str) -> set[str]:
    """The modules of :data:`IO_MODULES` that ``source`` imports, at any level."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(a.name.partition(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.partition(".")[0])
    return found & IO_MODULES


def test_the_pure_layer_does_no_file_io():
    found = {
        f"{module_name(p)}: {sorted(io_imports(p.read_text(encoding='utf-8')))}"
        for p in sorted((PACKAGE / "algorithms").rglob("*.py"))
        if io_imports(p.read_text(encoding="utf-8"))
    }
    assert found == set()


def test_the_io_checker_sees_a_function_level_import():
    assert io_imports("def f():\n    import tempfile\n    from os import pread\n") == {
        "tempfile",
        "os",
    }


#: The folders beside the package: the measurements, the tests and the scripts users run.
ROOT = PACKAGE.parent
OUTSIDE = ("benchmarks", "tests", "scripts", "conftest")


def outside_imports(source: str) -> set[str]:
    """The top-level names of :data:`OUTSIDE` that ``source`` imports, at any level."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(a.name.partition(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.partition(".")[0])
    return found & set(OUTSIDE)


def test_the_package_imports_nothing_of_benchmarks_or_tests():
    """``benchmarks/`` sits beside ``webdedup/`` and is not in the wheel: the package may not
    import it (nor the tests)."""
    found = {
        f"{module_name(p)}: {sorted(outside_imports(p.read_text(encoding='utf-8')))}"
        for p in sorted(PACKAGE.rglob("*.py"))
        if outside_imports(p.read_text(encoding="utf-8"))
    }
    assert found == set()
    assert outside_imports("from benchmarks.corpus import make_corpus\n") == {"benchmarks"}


def path_hacks(source: str) -> list[str]:
    """Edits of ``sys.path`` and file loaders (``importlib.util.spec_from_file_location``):
    how one script used to import another, or a test a script, by its file."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr == "spec_from_file_location":
            found.append(f"line {node.lineno}: spec_from_file_location")
        elif (isinstance(node, ast.Attribute) and node.attr == "path"
              and isinstance(node.value, ast.Name) and node.value.id == "sys"):
            found.append(f"line {node.lineno}: sys.path")
    return found


def test_code_imports_code_by_module_not_by_file():
    """``benchmarks`` is a package (``python -m benchmarks.speed.bench``), the tests import
    it and each other by name (pytest's ``pythonpath``): nothing edits ``sys.path``."""
    found = {
        f"{p.relative_to(ROOT)} {hack}"
        for folder in ("webdedup", "benchmarks", "tests", "scripts")
        for p in sorted((ROOT / folder).rglob("*.py"))
        for hack in path_hacks(p.read_text(encoding="utf-8"))
    }
    assert found == set()
    assert path_hacks("import sys\nsys.path.insert(0, 'scripts')\n") == ["line 2: sys.path"]
