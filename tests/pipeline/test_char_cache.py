"""The normalizer's table stored between runs (pipeline/char_cache.py): a stored table is
used only when whole and made from the same inputs; any other file is built again."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from webdedup.algorithms import text
from webdedup.pipeline import char_cache


@pytest.fixture(scope="module")
def built() -> tuple[np.ndarray, np.ndarray]:
    return text.build_char_table()


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[Path]:
    """A process that has no table yet, storing into two folders of tmp_path."""
    folders = [tmp_path / "beside-kernels", tmp_path / "home-cache"]
    monkeypatch.setattr(char_cache, "_folders", lambda: folders)
    monkeypatch.setattr(char_cache, "_LOADED", [])
    monkeypatch.setattr(text, "_CHAR_TABLE", [])
    return folders


def _forget() -> None:
    """As a new process: no table in memory."""
    char_cache._LOADED.clear()
    text._CHAR_TABLE.clear()


def _name() -> str:
    return f"char_table-{text.char_table_key()}.npz"


def _store(path: Path, table: np.ndarray, points: np.ndarray, check: str | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as out:
        np.savez(out, table=table, points=points,
                 sha1=check if check is not None else char_cache._digest(table, points))


def test_a_run_stores_the_table_and_the_next_loads_it(fresh, built):
    char_cache.load_char_table()
    stored = fresh[0] / _name()
    assert stored.exists() and not (fresh[1] / _name()).exists()
    assert all(np.array_equal(a, b) for a, b in zip(text.char_table(), built, strict=True))
    # the next process takes what the file holds: a valid table that differs shows it
    table, points = built[0].copy(), built[1].copy()
    table[:, ord("ж")] = table[:, ord("з")]
    _store(stored, table, points)
    _forget()
    char_cache.load_char_table()
    assert np.array_equal(text.char_table()[0], table)
    assert text.normalize_text("héж") == "héз"  # (a table only a test would store)


@pytest.mark.parametrize(
    "damage",
    ["truncated", "checksum", "shape", "not an archive", "one array", "out of bounds", "surrogate"],
)
def test_a_damaged_file_is_built_again(fresh, built, damage):
    stored = fresh[0] / _name()
    table, points = built[0].copy(), built[1].copy()
    table[:, ord("ж")] = table[:, ord("з")]
    if damage == "checksum":
        _store(stored, table, points, check="0" * 40)
    elif damage == "shape":
        _store(stored, table[:, :1000], points)
    elif damage == "one array":  # an .npy under the name: np.load raises a TypeError on it
        stored.parent.mkdir(parents=True, exist_ok=True)
        np.save(stored.with_suffix(".tmp.npy"), table)
        stored.with_suffix(".tmp.npy").rename(stored)
    elif damage == "out of bounds":  # checksummed, but the kernel would read past the points
        table[:, 0xE9] = (10**7, 10**7 + 1)
        _store(stored, table, points)
    elif damage == "surrogate":
        points[table[0, ord("ж")]] = 0xD800
        _store(stored, table, points)
    else:
        _store(stored, table, points)
        data = stored.read_bytes()
        stored.write_bytes(data[: len(data) // 2] if damage == "truncated" else b"x" * 100)
    char_cache.load_char_table()
    assert all(np.array_equal(a, b) for a, b in zip(text.char_table(), built, strict=True))
    assert text.normalize_text("héж") == "héж"
    _forget()  # and the file was replaced by a whole one
    assert char_cache._read(stored) is not None


def test_an_unwritable_folder_falls_to_the_next_or_to_none(fresh, built):
    if getattr(os, "geteuid", lambda: 0)() == 0:  # root writes through permissions: block
        # the folder with a file (and where there is no geteuid, do the same)
        fresh[0].write_bytes(b"")
    else:
        fresh[0].mkdir()
        fresh[0].chmod(0o500)
    char_cache.load_char_table()
    assert (fresh[1] / _name()).exists()
    _forget()
    fresh[1].rename(fresh[1].with_name("elsewhere"))
    fresh[1].write_bytes(b"")  # neither folder can hold it now: built, nothing stored
    char_cache.load_char_table()
    assert all(np.array_equal(a, b) for a, b in zip(text.char_table(), built, strict=True))


def test_the_key_follows_what_the_table_is_made_from(monkeypatch):
    key = text.char_table_key()
    monkeypatch.setattr(text, "TABLE_LIMIT", text.TABLE_LIMIT - 1)
    assert text.char_table_key() != key
    monkeypatch.undo()
    monkeypatch.setattr(text, "_INVISIBLE", {**text._INVISIBLE, 0x200C: None})
    assert text.char_table_key() != key


def test_a_stored_table_replaces_the_tables_of_other_keys(fresh, built):
    old = fresh[0] / "char_table-0123456789abcdef.npz"
    _store(old, *built)
    char_cache.load_char_table()
    assert (fresh[0] / _name()).exists() and not old.exists()


def test_the_key_is_the_same_in_every_process():
    """(marshal's bytes of a code object depend on reference counts: not a key.)"""
    code = "from webdedup.algorithms import text; print(text.char_table_key())"
    keys = {
        subprocess.run([sys.executable, "-c", pre + code], capture_output=True, text=True,
                       check=True).stdout.strip()
        for pre in ("", "import webdedup.pipeline.char_cache; x = [1] * 3; ")
    }
    assert keys == {text.char_table_key()}


def test_a_constant_set_of_strings_gives_one_digest_under_any_hash_seed():
    code = ("from webdedup.algorithms import text\n"
            "def f(x):\n    return x in {'alpha', 'beta', 'gamma', 'delta', 'epsilon'}\n"
            "print(text._code_digest(f.__code__).hex())")
    digests = {
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                       env={**os.environ, "PYTHONHASHSEED": seed}).stdout.strip()
        for seed in ("1", "2", "3", "4")
    }
    assert len(digests) == 1
