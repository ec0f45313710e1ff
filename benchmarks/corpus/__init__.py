"""Labelled corpora (real texts of ../shared/data and pages derived from them, with their true
clusters) and the evaluator that scores webdedup's groups against them."""
