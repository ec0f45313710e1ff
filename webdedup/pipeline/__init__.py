"""The pipeline: one module a phase, in the order a run takes them.

1. :mod:`.phase1_prepare` — canonical URL, normalized-text hash, sketches per page;
2. :mod:`.phase2_elect_urls` — one winner per canonical URL;
3. :mod:`.phase3_elect_exact` — one winner per text shared by URL groups;
4. :mod:`.phase4_near` — near-duplicate candidates, verification and groups
   (:mod:`.phase4_window` for the ``levenshtein`` window);
5. :mod:`.phase5_write_back` — the write: one transaction, or a large one in batches.

:mod:`.run` runs them over a database (``run_on_db``), :mod:`.in_memory` over a list of pages
(``run_on_list``, the same phases on an in-memory SQLite database), :mod:`.prune` removes and
restores non-canonical pages. Every phase takes a :class:`~.context.RunContext` and returns a
result dataclass (:mod:`.context`).
"""
