"""The package reads like the pipeline: imports only point down, and no module imports
itself back through another (the README's "Code map" describes the layers)."""

from __future__ import annotations

import ast
from pathlib import Path

import webdedup

PACKAGE = Path(webdedup.__file__).parent

#: Each top-level unit of the package and its layer: a module may import its own unit and
#: lower layers only.
LAYERS = {
    "version": 0,
    "errors": 0,
    "parallel": 0,
    "progress": 0,
    "algorithms": 1,
    "config": 2,
    "store": 3,
    "incremental": 4,
    "pipeline": 5,
    "output": 6,
    "ingest": 6,
    "api": 7,
    "cli": 8,
    "": 9,  # webdedup/__init__.py
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def imports_of(path: Path) -> set[str]:
    """Every webdedup module this file imports at run time (function-level imports too)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _type_checking_lines(tree)
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
    found.discard(name)
    return found


def _exists(module: str) -> bool:
    rel = Path(*module.split(".")[1:])
    return (PACKAGE / rel).with_suffix(".py").exists() or (PACKAGE / rel / "__init__.py").exists()


def unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def graph() -> dict[str, set[str]]:
    return {module_name(p): imports_of(p) for p in sorted(PACKAGE.rglob("*.py"))}


def test_every_unit_has_a_layer():
    assert {unit(m) for m in graph()} <= set(LAYERS)


def test_imports_only_point_down():
    upward = [
        f"{m} -> {t}"
        for m, targets in graph().items()
        for t in targets
        if unit(t) != unit(m) and LAYERS[unit(t)] >= LAYERS[unit(m)]
    ]
    assert upward == []


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


def test_the_checker_sees_an_upward_import(tmp_path):
    """The test above can fail: a store module importing the pipeline is caught."""
    fake = PACKAGE / "store" / "_layout_probe.py"
    fake.write_text("from ..pipeline import run\n", encoding="utf-8")
    try:
        targets = imports_of(fake)
    finally:
        fake.unlink()
    assert "webdedup.pipeline.run" in targets
    assert LAYERS[unit("webdedup.pipeline.run")] > LAYERS["store"]
