"""webdedup's own exceptions.

Every error a user can cause is one of these classes. Each carries an ``exit_code`` that the
CLI uses, and a message that says what to do about it.
"""

from __future__ import annotations


class WebdedupError(Exception):
    """Base class of every error webdedup raises on purpose."""

    exit_code = 1


class ConfigError(WebdedupError, ValueError):
    """A parameter or config file value is invalid."""

    exit_code = 2


class InputError(WebdedupError):
    """The database is not something webdedup can work on (not SQLite, no table, ...)."""

    exit_code = 3


class NotADatabase(InputError):
    """The file does not exist or is not an SQLite database."""


class DamagedDatabase(InputError):
    """The SQLite file is damaged (truncated, overwritten): SQLite calls it malformed."""


class NoPagesTable(InputError):
    """The database has no table of pages under the configured name."""


class MissingColumn(InputError):
    """A required column (URL, text) is not in the pages table."""


class RestoreConflict(InputError):
    """``webdedup restore`` can't put pruned pages back under their ids (the crawler reused an
    id, or re-crawled a URL into a ``UNIQUE`` column): it lists them and restores nothing."""


class DatabaseLocked(WebdedupError):
    """Another connection held the write lock for longer than the busy timeout."""

    exit_code = 4


class ConcurrentRun(DatabaseLocked):
    """Another webdedup run wrote to the database while this one was running."""


class ReadOnlyDatabase(WebdedupError):
    """The database file (or its folder, needed for the WAL) cannot be written."""

    exit_code = 5


class ReadOnlyOutput(WebdedupError):
    """An output folder or file (``daft --out`` ...) can't be written: a read-only file system,
    or no permission."""

    exit_code = 5


class SchemaTooNew(WebdedupError):
    """The database was annotated by a newer webdedup whose state this version cannot read."""

    exit_code = 6


class IngestProblems(WebdedupError):
    """``webdedup ingest`` met unreadable records or files (the readable ones went in)."""

    exit_code = 7


class DiskFull(WebdedupError):
    """The disk (of the database, its temporary files or an output) filled up while writing.

    SQLite rolled back the unfinished transaction: the database is as its last commit left it.
    """

    exit_code = 8


class Interrupted(WebdedupError):
    """Ctrl-C or SIGTERM stopped the command; an unfinished transaction was rolled back.

    128 + SIGINT, the shell's code of a command stopped by Ctrl-C.
    """

    exit_code = 130


class ClusterUnreachable(InputError):
    """The Ray cluster named by ``--ray-address`` does not answer."""


class NotFound(InputError):
    """A page or group that a request names is not in the database (the review app's 404)."""


class WorkerFailed(WebdedupError):
    """A worker process (or the extraction set up in this process) could not start, or died.

    An import that fails in a worker means the installation is missing a module (reinstall
    webdedup with its dependencies); a worker that dies without a word was killed or crashed.
    """

    exit_code = 9
