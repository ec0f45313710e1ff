"""A crawler in its own process (``python writer.py DB SEED STOPFILE``): transactions that
insert, update and delete pages, with Python's default 5 s busy timeout, until STOPFILE
exists. Prints one JSON line: transactions committed, failures, and the pages as it believes
they are (``{id: [url, content]}``)."""

from __future__ import annotations

import json
import os
import random
import sqlite3
import sys
import time


def main(db: str, seed: str, stop: str) -> None:
    rng = random.Random(seed)
    conn = sqlite3.connect(db)  # timeout=5.0, Python's default, as most crawlers use it
    pages = {r[0]: [r[1], r[2]] for r in conn.execute("SELECT id, url, content FROM pages")}
    texts = [c for _, c in pages.values() if c and len(c) > 200]
    committed = failures = 0
    errors: list[str] = []
    n = 0
    while not os.path.exists(stop):
        n += 1
        ids = sorted(pages)
        try:
            # a copy of a known text (an exact duplicate) or an edited one (a near-duplicate)
            text = rng.choice(texts)
            if rng.random() < 0.5:
                words = text.split()
                half = len(words) // 2
                text = " ".join([*words[:half], "edited", str(n), *words[half:]])
            url = f"https://crawler.example.com/{seed}/{n}"
            cur = conn.execute("INSERT INTO pages (url, content) VALUES (?, ?)", (url, text))
            new_id = cur.lastrowid
            upd = rng.choice(ids)
            new_content = (pages[upd][1] or "") + f" revisited {n}"
            conn.execute("UPDATE pages SET content = ? WHERE id = ?", (new_content, upd))
            gone = rng.choice(ids)
            while gone == upd:
                gone = rng.choice(ids)
            conn.execute("DELETE FROM pages WHERE id = ?", (gone,))
            conn.commit()
        except sqlite3.Error as exc:
            failures += 1
            errors.append(str(exc))
            conn.rollback()
        else:
            committed += 1
            pages[new_id] = [url, text]
            pages[upd][1] = new_content
            del pages[gone]
        time.sleep(rng.uniform(0.0, 0.02))
    conn.close()
    print(json.dumps({"committed": committed, "failures": failures, "errors": errors[:5],
                      "pages": pages}))


if __name__ == "__main__":
    main(*sys.argv[1:4])
