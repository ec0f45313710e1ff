"""``benchmarks/studies/lock_holds.py`` (docs/benchmarks.md): one line for each write
transaction of a batched write-back, and a summary that adds them up."""

from __future__ import annotations

import json
import re

from benchmarks.studies import lock_holds
from tests.conftest import make_page, real_texts, write_pages


def test_every_write_transaction_is_a_line(tmp_path, capsys):
    texts = [t["text"] for t in real_texts(limit=40)]
    pages = [make_page(f"https://a{i % 4}.example/p{i}", t) for i, t in enumerate(texts)]
    corpus = write_pages(tmp_path / "corpus.sqlite", pages)
    before = corpus.read_bytes()
    lines = tmp_path / "holds.jsonl"
    assert lock_holds.main([str(corpus), "--work", str(tmp_path / "work"), "--write-lock",
                            "1e-9", "--jsonl", str(lines)]) == 0
    out = capsys.readouterr().out
    assert corpus.read_bytes() == before  # the corpus is copied, never written
    raw = [json.loads(line) for line in lines.read_text().splitlines()]
    annotations = [r for r in raw if r[1] == "annotations"]
    assert len(annotations) > 1 and sum(r[3] for r in annotations) == len(pages)
    printed = re.findall(r"^ +[\d.]+ +([\d.]+) +([\d,]+) +[\d.]+ +([\d.]+) +([\d.]+)$", out,
                         re.M)
    assert [int(rows.replace(",", "")) for _, rows, _, _ in printed] == [r[3] for r in annotations]
    # the WAL grows in the first transactions (it starts empty), and the summary tells those
    assert raw[0][7] > 0 and all(r[7] >= 0 for r in raw)
    grew = re.search(r"transactions that grew the WAL file: (\d+),", out)
    assert grew and int(grew[1]) == sum(r[7] > 0 for r in raw)
    # the commit is a part of the hold
    assert all(0 <= r[6] <= r[2] + 1e-3 for r in raw) and any(r[6] > 0 for r in raw)
    total = re.search(r"all holds ([\d.]+) s in (\d+) transactions, (\d+) catch-ups", out)
    assert total and int(total[2]) == len(raw) > len(annotations)


def test_wal_room_compares_the_rule_off_and_on(tmp_path, capsys):
    """``--wal-room 0`` turns the room rule off for the run, a small room makes it catch up
    (counted), and the module's ``WAL_ROOM`` is as it was afterwards."""
    from webdedup.pipeline import phase5_write_back

    texts = [t["text"] for t in real_texts(limit=60)]
    pages = [make_page(f"https://a{i % 4}.example/p{i}", t) for i, t in enumerate(texts)]
    corpus = write_pages(tmp_path / "corpus.sqlite", pages)
    room = phase5_write_back.WAL_ROOM
    counts = {}
    for name, mib in (("off", "0"), ("small", "0.0625")):
        assert lock_holds.main([str(corpus), "--work", str(tmp_path / name), "--write-lock",
                                "1e-9", "--wal-room", mib]) == 0
        out = capsys.readouterr().out
        counts[name] = int(re.search(r"(\d+) catch-ups", out)[1])  # type: ignore[index]
        assert phase5_write_back.WAL_ROOM == room
    assert counts["small"] > counts["off"], counts


def test_a_full_run_in_place_rewrites_the_state_alone(tmp_path, capsys):
    """``--in-place --full`` on a database a run annotated: the state tables are copied
    again in batches, and no annotation is rewritten (none changes: the annotations' batches
    change no row)."""
    texts = [t["text"] for t in real_texts(limit=40)]
    pages = [make_page(f"https://a{i % 4}.example/p{i}", t) for i, t in enumerate(texts)]
    db = write_pages(tmp_path / "crawl.sqlite", pages)
    lines = tmp_path / "holds.jsonl"
    args = [str(db), "--in-place", "--write-lock", "1e-9", "--jsonl", str(lines)]
    assert lock_holds.main(args) == 0  # the first run, on the database itself
    first = [json.loads(line) for line in lines.read_text().splitlines()]
    assert sum(r[3] for r in first if r[1] == "annotations") == len(pages)
    capsys.readouterr()
    assert lock_holds.main([*args, "--full", "--step", "_webdedup_prepared"]) == 0
    again = [json.loads(line) for line in lines.read_text().splitlines()]
    assert sum(r[3] for r in again if r[1] == "annotations") == 0
    copied = [r for r in again if r[1] == "_webdedup_prepared"]
    assert len(copied) > 1 and sum(r[3] for r in copied) >= len(pages)
    printed = re.findall(r"^ +[\d.]+ +[\d.]+ +([\d,]+) +[\d.]+ +[\d.]+ +[\d.]+$",
                         capsys.readouterr().out, re.M)
    assert [int(rows.replace(",", "")) for rows in printed] == [r[3] for r in copied]
