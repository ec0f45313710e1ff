"""webdedup's measurements, beside the package and not shipped in its wheel.

``benchmarks.corpus`` builds labelled corpora and scores a run against them,
``benchmarks.speed`` times webdedup (and its peers), ``benchmarks.studies`` holds one-off
measurements behind a default. Run them from the checkout's root as modules, e.g.
``python -m benchmarks.speed.bench``; each folder's README.md says what each one measures.
"""
