"""Counts in a reader's words: "1 group", "2 groups" (no "1 groups").

>>> plural(1, "group"), plural(1_234, "page"), plural(0, "duplicate")
('1 group', '1,234 pages', '0 duplicates')
>>> plural(1, "file was", "files were")
'1 file was'
"""

from __future__ import annotations


def plural(n: int, one: str, many: str | None = None) -> str:
    """``n`` with the singular or plural of a noun (``many`` defaults to ``one + "s"``)."""
    return f"{n:,} {one if n == 1 else (many or one + 's')}"
