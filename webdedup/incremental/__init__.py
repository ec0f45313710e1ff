"""Incremental nightly runs: what changed since the last run (:mod:`.plan`) and the region
of pages a nightly run recomputes around the changes (:mod:`.region`). The change-tracking
triggers themselves are part of the schema (:mod:`webdedup.store.schema`)."""
