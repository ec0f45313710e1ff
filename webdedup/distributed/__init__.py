"""The same pipeline on Daft (its native runner on one machine, its Ray runner on a cluster).

For crawls that outgrow one SQLite file: pages in Parquet (``webdedup export --parquet`` writes
them from a database; a crawler's own Parquet works too), deduplicated by :mod:`.daft_pipeline`
with the same phases and rules as ``webdedup db``, the result written as Parquet and, when
wanted, brought back into the database by :mod:`.assignments` (``webdedup db --assignments``)
with the state a next, incremental SQLite run needs.

- :mod:`.daft_pipeline` the run: the phases as dataframe operations (needs the ``daft``
  extra), over :mod:`.runner` (native or Ray), :mod:`.reading` (the Parquet pages and their
  verdicts), :mod:`.elections` (the elections), :mod:`.udfs` (webdedup's own functions on
  batches), :mod:`.scratch` (the run's intermediate tables, and the parts it is cut into so
  that its memory is a part's, not the crawl's) and :mod:`.writing` (the Parquet parts and
  the manifest, locally or on ``s3://``);
- :mod:`.components` connected components of an edge dataframe (large-star/small-star);
- :mod:`.parquet` the hand-off files: pages to Parquet (``export --parquet``);
- :mod:`.assignments` reads a Daft run's output into a database's run tables.

The API reaches it through ``Deduplicator.export_parquet``, ``run_on_parquet`` and
``load_assignments``, which import it when called; nothing else in webdedup imports it, and
Daft, Ray and pyarrow are imported only when a function that needs them runs, so ``import
webdedup`` works without the extras.

Daft and Ray send anonymous usage statistics over the network unless told not to; webdedup
works on private crawls, so it tells them not to, unless the user chose otherwise
(``DAFT_ANALYTICS_ENABLED``, ``RAY_USAGE_STATS_ENABLED`` already set).
"""

import os

os.environ.setdefault("DAFT_ANALYTICS_ENABLED", "0")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
