"""The version of webdedup (one place; the package, the run rows and the reports read it)."""

__version__ = "0.1.0"
