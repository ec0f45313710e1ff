"""The ``webdedup`` command line: parse, call the API, print. No SQL and no algorithm here."""

from __future__ import annotations

import errno
import json
import math
import os
import signal
import sqlite3
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict
from typing import Any, TypeVar

import click

from .api import Deduplicator
from .config import MAX_BUSY_TIMEOUT, Columns, Config, Setting, default_of, settings
from .errors import ConfigError, DiskFull, Interrupted, ReadOnlyOutput, WebdedupError
from .store.connection import translate
from .version import __version__
from .words import plural

F = TypeVar("F", bound=Callable[..., Any])


class WebdedupClickError(click.ClickException):
    """A webdedup error shown as ``Error: ...`` with the error's own exit code."""

    def __init__(self, error: WebdedupError) -> None:
        super().__init__(str(error))
        self.exit_code = error.exit_code  # type: ignore[misc]  # click reads it per instance


@contextmanager
def errors_to_exit_codes() -> Iterator[None]:
    """webdedup's errors as their exit codes; so are a full disk and a read-only file system
    wherever they strike (SQLite's "database or disk is full", ``ENOSPC``, ``EROFS``)."""
    try:
        yield
    except WebdedupError as exc:
        raise WebdedupClickError(exc) from exc
    except sqlite3.Error as exc:
        error = translate(exc)
        if type(error) is WebdedupError:  # not one of the known failures: keep the traceback
            raise
        raise WebdedupClickError(error) from exc
    except OSError as exc:
        if exc.errno == errno.ENOSPC:
            raise WebdedupClickError(DiskFull(
                f"no space left on the device to write {exc.filename or 'the output'}; free "
                "some space (or write elsewhere), then run again"
            )) from exc
        if exc.errno == errno.EROFS:
            raise WebdedupClickError(ReadOnlyOutput(
                f"{exc.filename or 'the output'} is on a read-only file system; write "
                "somewhere writable"
            )) from exc
        raise


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread like Ctrl-C's KeyboardInterrupt."""


class StopSignals:
    """SIGINT and SIGTERM raise KeyboardInterrupt (:class:`Terminated` for SIGTERM) in the main
    thread while a command runs, and again every ``RESEND`` seconds until the command has
    stopped: Python drops an exception raised where it can't propagate (an at-fork hook as a
    pool starts, a finalizer), and a stop must not be lost there."""

    RESEND = 0.5
    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.done = threading.Event()
        self.lock = threading.Lock()  # no resend once the handlers are restored
        self.previous: dict[int, Any] = {}
        self.pid = os.getpid()  # the process whose handlers these are (not a forked child)
        self.unraisable = sys.unraisablehook

    def __enter__(self) -> StopSignals:
        if threading.current_thread() is threading.main_thread():
            self.previous = {s: signal.signal(s, self._raise) for s in self.SIGNALS}
            self.unraisable = sys.unraisablehook
            sys.unraisablehook = self._unraisable
        return self

    def _unraisable(self, unraisable: Any) -> None:
        """A dropped stop is sent again: no "Exception ignored" traceback for it."""
        if not issubclass(unraisable.exc_type, KeyboardInterrupt):
            self.unraisable(unraisable)

    def __exit__(self, *exc: object) -> None:
        with self.lock:
            self.done.set()
        for signum, handler in self.previous.items():
            signal.signal(signum, handler if handler is not None else signal.SIG_DFL)
        if self.previous:
            sys.unraisablehook = self.unraisable

    def _raise(self, signum: int, frame: object) -> None:
        if os.getpid() != self.pid:
            # a worker forked before it set its own handlers, stopped with the run: it ends
            # as a stopped worker does, without a traceback of its bootstrap
            os._exit(128 + signum)
        if not self.done.is_set():
            resend = threading.Timer(self.RESEND, self._resend, (signum,))
            resend.daemon = True
            resend.start()
        raise Terminated if signum == signal.SIGTERM else KeyboardInterrupt

    def _resend(self, signum: int) -> None:
        with self.lock:
            if not self.done.is_set():
                os.kill(os.getpid(), signum)


class WebdedupGroup(click.Group):
    """The command group: Ctrl-C and SIGTERM stop a command with the documented exit code of
    an interrupted run and a line of advice (not click's "Aborted!", nor a silent death)."""

    def invoke(self, ctx: click.Context) -> Any:
        with StopSignals():
            try:
                return super().invoke(ctx)
            except KeyboardInterrupt as exc:
                name = "SIGTERM" if isinstance(exc, Terminated) else "Ctrl-C (SIGINT)"
                raise WebdedupClickError(Interrupted(
                    f"stopped by {name} before it finished; what it had not committed was "
                    "rolled back, so the database is consistent: run the command again to finish"
                )) from None


def _parse_columns(
    pairs: tuple[str, ...], option: str = "--column NAME=COLUMN", example: str = "content=body"
) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        name, sep, column = pair.partition("=")
        if not sep or not name or not column:
            raise ConfigError(f"{option.split()[0]} takes {option.split()[1]} (e.g. {example}), "
                              f"got {pair!r}")
        out[name.strip()] = column.strip()
    return out


def _parse_set(pairs: tuple[str, ...]) -> dict[str, Any]:
    """``--set KEY=VALUE`` pairs as configuration values of each key's kind (a number, true
    or false, a comma-separated list, a string)."""
    known = settings()
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key:
            raise ConfigError(f"--set takes KEY=VALUE (e.g. lsh_threshold=0.35), got {pair!r}")
        if key not in known:
            raise ConfigError(
                f"--set: unknown key {key!r}; the keys are: {', '.join(known)} "
                "(the manual's configuration reference says what each does)"
            )
        out[key] = _typed(key, known[key], text.strip())
    return out


def _typed(key: str, spec: Setting, text: str) -> Any:
    if spec.kind == "list":
        return tuple(v.strip() for v in text.split(",") if v.strip())
    if spec.kind == "bool":
        low = text.lower()
        if low in ("true", "1", "yes", "on"):
            return True
        if low in ("false", "0", "no", "off"):
            return False
        raise ConfigError(f"--set {key} takes true or false, got {text!r}")
    if spec.kind in ("number", "seconds", "integer"):
        try:
            return int(text) if spec.kind == "integer" else float(text)
        except ValueError:
            raise ConfigError(
                f"--set {key} takes {Setting.KINDS[spec.kind][1]}, got {text!r}"
            ) from None
    return text


def build_config(
    config_file: str | None,
    table: str | None,
    columns: tuple[str, ...],
    set_pairs: tuple[str, ...] = (),
    **options: Any,
) -> Config:
    """Defaults, overlaid by the config file, then ``--set KEY=VALUE``, then the options."""
    base = Config.from_toml(config_file) if config_file else Config()
    mapping = asdict(base.columns)
    mapping.update(_parse_columns(columns))
    if table is not None:
        mapping["table"] = table
    overrides = _parse_set(set_pairs)
    specs = settings()
    for key, value in options.items():
        spec = specs.get(key)
        if value is None or value == ():
            continue
        if spec is not None and spec.values == "repeat":  # added to the file's and --set's
            overrides[key] = tuple(overrides.get(key, getattr(base, key))) + tuple(value)
        elif spec is not None and spec.values == "csv":
            overrides[key] = tuple(k.strip() for k in value.split(",") if k.strip())
        else:
            overrides[key] = value
    return base.with_overrides(columns=Columns.from_mapping(mapping), **overrides)


def _default_text(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, tuple):
        return ",".join(value) if value else "none"
    return f"{value:g}" if isinstance(value, float) else str(value)


def setting_option(name: str) -> Callable[[F], F]:
    """The ``db`` option of configuration key ``name``, made from its :class:`Setting`:
    type, range, help and the ``[default: ...]`` text all come from there."""
    spec = settings()[name]
    flag = spec.flag or "--" + name.replace("_", "-")
    default = spec.derived if spec.derived else _default_text(default_of(name))
    help_text = f"{spec.help} [default: {default}]"
    kw: dict[str, Any] = {"default": None, "help": help_text}
    if spec.metavar:
        kw["metavar"] = spec.metavar
    if spec.kind == "bool":
        off = spec.off or "--no-" + flag[2:]
        return click.option(f"{flag}/{off}", name, **kw)
    if spec.values == "repeat":
        kw.update(multiple=True, default=())
        return click.option(flag, name, **kw)
    if spec.choices:
        kw["type"] = click.Choice(spec.choices)
    elif spec.kind == "integer":
        kw["type"] = int  # the range is checked by Config, in its words
    elif spec.kind in ("number", "seconds"):
        kw["type"] = float
        kw["callback"] = _finite
    return click.option(flag, name, **kw)


def set_option(func: F) -> F:
    """``--set KEY=VALUE``: any configuration key, the tuning knobs included."""
    return click.option(
        "--set",
        "set_pairs",
        multiple=True,
        metavar="KEY=VALUE",
        help="Any configuration key, e.g. --set lsh_threshold=0.35 --set similarity=jaccard "
        "(the tuning knobs have no option of their own; see the configuration reference). "
        "Repeatable; the options above win over it.",
    )(func)


def _moved_to_set(ctx: click.Context, param: click.Parameter, value: Any) -> None:
    if value is not None:
        name = (param.name or "").removeprefix("moved_")
        raise click.UsageError(
            f"{param.opts[0]} is a tuning knob now: give it as --set {name}={value} "
            "(or in the TOML file)", ctx
        )


def config_options(func: F) -> F:
    """Every everyday configuration key as an option, and ``--set KEY=VALUE`` for the rest.

    The tuning knobs that had options of their own (``--lsh-threshold``...) are hidden
    options that say how to give them now, instead of click's "no such option"."""
    func = set_option(func)
    for name, spec in reversed(list(settings().items())):
        if spec.option == "everyday":
            func = setting_option(name)(func)
        elif name in _FORMER_OPTIONS:
            func = click.option(
                "--" + name.replace("_", "-"), "moved_" + name, hidden=True,
                expose_value=False, callback=_moved_to_set,
                help=f"Moved: --set {name}=VALUE.",
            )(func)
    return func


#: Tuning knobs that were options of ``db`` before they moved behind ``--set``.
_FORMER_OPTIONS = frozenset(
    {"min_words", "similarity", "lsh_threshold", "chain_floor", "chunk_size",
     "segment_min_pages"}
)


def input_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """Options that say where the pages are (shared by every command that reads a database)."""
    func = click.option(
        "--column",
        "columns",
        multiple=True,
        metavar="NAME=COLUMN",
        help="Map an input column to your table's name for it, e.g. content=body or "
        "datetime=fetched_at. Names: url, content, html, title, datetime, date, crawled, "
        "category, lang. Repeatable.",
    )(func)
    func = table_option(func)
    func = click.option(
        "--config",
        "config_file",
        type=click.Path(dir_okay=False),
        default=None,
        help="A TOML file with any of these options (command-line options win).",
    )(func)
    return func


def _finite(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    if value is not None and not math.isfinite(value):
        raise click.BadParameter(f"{value} is not a number of seconds", ctx, param)
    return value


def busy_timeout_option(default: float | None = 5.0) -> Callable[[F], F]:
    """``--busy-timeout``: how long to wait for a lock held by another writer."""
    return click.option(
        "--busy-timeout",
        type=click.FloatRange(min=0, max=MAX_BUSY_TIMEOUT),
        callback=_finite,
        default=default,
        metavar="SECONDS",
        help="Seconds to wait for a lock held by another writer [default: 5].",
    )


class ByteSize(click.ParamType):
    """A number of bytes, with an optional K, M or G suffix (powers of 1024): ``64M``."""

    name = "size"
    UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None
                ) -> int:
        if isinstance(value, int):
            return value
        text = str(value).strip().upper().removesuffix("B").removesuffix("I")
        unit = text[-1:] if text[-1:] in "KMG" else ""
        number = text[: len(text) - len(unit)]
        if not number.isdigit() or int(number) < 1:
            self.fail(f"{value!r} is not a size such as 1000000, 512K, 64M or 1G", param, ctx)
        return int(number) * self.UNITS[unit]


def quiet_option(help_text: str = "No progress bars and no summary.") -> Callable[[F], F]:
    """``--quiet``/``-q``."""
    return click.option("--quiet", "-q", is_flag=True, help=help_text)


def json_option(help_text: str) -> Callable[[F], F]:
    """``--json``: machine-readable output instead of text."""
    return click.option("--json", "as_json", is_flag=True, help=help_text)


def table_option(func: F) -> F:
    """``--table``: the crawler's table of pages."""
    return click.option(
        "--table", default=None, help="Name of the crawler's table of pages [default: pages]."
    )(func)


@click.group(
    cls=WebdedupGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100}
)
@click.version_option(__version__, prog_name="webdedup")
def cli() -> None:
    """Find URL duplicates, exact duplicates and near-duplicates in an SQLite crawl.

    \b
    Example:
        webdedup db crawl.sqlite
        webdedup db crawl.sqlite --threshold 0.85 --ignore tag --ignore /search
    """


@cli.command("db")
@click.argument("path", type=click.Path(dir_okay=False))
@input_options
@config_options
@click.option(
    "--prune",
    is_flag=True,
    help="Move non-canonical pages into _webdedup_pruned ('webdedup restore' puts them back).",
)
@click.option(
    "--full",
    is_flag=True,
    help="Recompute everything instead of only the pages changed since the last run.",
)
@click.option(
    "--assignments",
    default=None,
    metavar="DIR",
    help="Write the results of 'webdedup daft' (its --out directory, or a glob of its Parquet "
    "files) instead of computing them; the next run is incremental from there.",
)
@quiet_option()
@json_option("Print the run's result as JSON.")
def db_command(
    path: str,
    config_file: str | None,
    table: str | None,
    columns: tuple[str, ...],
    prune: bool,
    full: bool,
    quiet: bool,
    as_json: bool,
    assignments: str | None,
    set_pairs: tuple[str, ...],
    **options: Any,
) -> None:
    """Group the duplicate pages of the crawl database PATH and annotate its pages table.

    Adds and fills the columns canonical_url, content_hash, exact_group_size, dup_group,
    dup_group_size, canonical_id, is_canonical, dup_kind and dup_score on every page, in one
    transaction at the end; a write larger than --write-lock allows (a first run on a big
    crawl) goes in transactions of about that length, so a crawler never waits long.
    Nothing is deleted unless --prune is given.

    The first run is full and installs triggers on the table; later runs (say, nightly) only
    process the pages inserted, updated or deleted since, and give the same result a full run
    would. A change of the parameters that shape signatures or edges forces a full run.
    --method vectors (reworded copies) always makes a full run.

    \b
    Example:
        webdedup db crawl.sqlite
        webdedup db crawl.sqlite --column content=body --column datetime=fetched_at
        webdedup db crawl.sqlite --config webdedup.toml --quiet
        webdedup db crawl.sqlite --languages en,de
        webdedup db crawl.sqlite --detect-language
        webdedup db crawl.sqlite --method vectors --threshold 0.85
        webdedup db crawl.sqlite --count-segments && webdedup segments crawl.sqlite
        webdedup db crawl.sqlite --strip-segments
    """
    with errors_to_exit_codes():
        config = build_config(config_file, table, columns, set_pairs, **options)
        say = None if quiet or as_json else (lambda line: click.echo(line, err=True))
        dedup = Deduplicator(config=config, progress=not quiet)
        if assignments is not None:
            result = dedup.load_assignments(path, assignments, prune=prune, on_message=say)
        else:
            result = dedup.run_on_db(path, prune=prune, full=full, on_message=say)
    if as_json:
        click.echo(json.dumps(asdict(result), indent=2))
    elif not quiet:
        click.echo(result.summary())
        if result.renumbered:
            click.echo(
                f"note: {result.renumbered:,} rows hold another URL than at the last run "
                "(rowids renumbered, e.g. by VACUUM); they were recomputed",
                err=True,
            )
        if result.pruned:
            click.echo(f"pruned {result.pruned:,} non-canonical pages into _webdedup_pruned")


@cli.command("ingest")
@click.argument("path", type=click.Path(dir_okay=False))
@click.argument("inputs", nargs=-1, required=True, type=click.Path(exists=True))
@click.option(
    "--column",
    "columns",
    multiple=True,
    metavar="NAME=COLUMN",
    help="Write a page field into your table's column of another name, e.g. url=link or "
    "content=body (names: url, content, html, title, datetime, crawled). Repeatable.",
)
@table_option
@click.option(
    "--field",
    "fields",
    multiple=True,
    metavar="NAME=KEY",
    help="JSONL key of a page field, e.g. url=link or html=raw_html (names: url, html, text, "
    "title, datetime, crawled). Repeatable.",
)
@click.option("--keep-html", is_flag=True, help="Also store the raw HTML (html column).")
@click.option(
    "--parquet",
    is_flag=True,
    help="Write the pages as Parquet files into the new directory PATH (for 'webdedup daft') "
    "instead of into a database.",
)
@click.option("--strict", is_flag=True, help="Stop at the first bad record or file.")
@click.option(
    "--max-record-size",
    type=ByteSize(),
    default="64M",
    metavar="SIZE",
    help="Largest record read into memory, once decompressed: a WARC record's headers or "
    "HTML body, a JSONL line, an HTML file (K, M, G suffixes). A bigger one (a gzip bomb) is "
    "a bad record, skipped [default: 64M].",
)
@click.option(
    "--workers",
    type=click.IntRange(min=0),
    default=0,
    help="Extraction processes [default: 0 = all cores].",
)
@busy_timeout_option()
@quiet_option("No progress bar and no summary.")
def ingest_command(
    path: str,
    inputs: tuple[str, ...],
    columns: tuple[str, ...],
    table: str | None,
    fields: tuple[str, ...],
    keep_html: bool,
    parquet: bool,
    strict: bool,
    max_record_size: int,
    workers: int,
    busy_timeout: float,
    quiet: bool,
) -> None:
    """Add the pages of WARC/ARC files, JSONL files or HTML folders INPUTS to database PATH.

    Creates the pages table (or appends to it) with url, title, content (the text extracted
    by trafilatura), datetime, crawled, content_type, status, warc_record_id, source_file and
    extraction ('empty' when no text was found). Only 2xx HTML responses become pages;
    revisit records become pages with the text of the response they refer to; redirects,
    errors and other records are counted. Ingesting a file again adds nothing (byte-identical
    HTML files under two paths are two pages). A bad record or file gives a warning and exit
    code 7, and the good records still go in; an extraction worker that cannot start (a
    missing module) stops the command with exit code 9.

    \b
    Example:
        webdedup ingest crawl.sqlite crawl-*.warc.gz
        webdedup ingest crawl.sqlite pages.jsonl.gz --field url=link --field html=raw
        webdedup ingest crawl.sqlite saved-pages/ --column content=body --workers 4
        webdedup ingest pages/ crawl-*.warc.gz --parquet
    """
    from .errors import IngestProblems
    from .ingest import ingest

    def warn(problem: object) -> None:
        from tqdm import tqdm  # writes above the progress bar instead of through it

        tqdm.write(f"warning: {problem}", file=sys.stderr)

    with errors_to_exit_codes():
        mapping = _parse_columns(columns)
        if table is not None:
            mapping["table"] = table
        options: dict[str, Any] = {
            "columns": Columns.from_mapping(mapping),
            "keep_html": keep_html,
            "strict": strict,
            "workers": workers,
            "progress": not quiet,
            "busy_timeout": busy_timeout,
            "jsonl_fields": _parse_columns(fields, "--field NAME=KEY", "url=link"),
            "on_problem": warn,
            "max_record_size": max_record_size,
        }
        if parquet:  # the same ingestion into a scratch database, exported as Parquet
            from .ingest.parquet import ingest_parquet

            done = ingest_parquet(path, inputs, **options)
            lines, report, stopped = done.lines(), done.report, done.stopped
        else:
            report, stopped = ingest(path, inputs, **options), None
            lines = [report.summary()]
        if not quiet:
            for line in lines:
                click.echo(line)
        if stopped is not None:
            raise stopped
        if report is not None and report.problems:
            raise IngestProblems(report.problems_line())


@cli.command("export")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option(
    "--json",
    "json_path",
    type=click.Path(dir_okay=False, allow_dash=True),
    default=None,
    help="Write the JSON report here ('-' for stdout).",
)
@click.option(
    "--csv",
    "csv_path",
    type=click.Path(dir_okay=False, allow_dash=True),
    default=None,
    help="Write the CSV table (one row a page) here ('-' for stdout).",
)
@click.option(
    "--html",
    "html_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write the self-contained HTML review page here.",
)
@click.option(
    "--datasette",
    "datasette_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write Datasette metadata here (YAML for .yml/.yaml, else JSON): state tables "
    "hidden, output columns described, facets dup_kind and dup_group_size.",
)
@click.option(
    "--parquet",
    "parquet_dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Write the pages (id, url, content, html, datetime, crawled, category) as Parquet "
    "files into this new directory, for 'webdedup daft' (works before any db run).",
)
@table_option
@click.option(
    "--column",
    "columns",
    multiple=True,
    metavar="NAME=COLUMN",
    help="With --parquet: the table's name for an input column, as for 'webdedup db'.",
)
@click.option("--with-text", is_flag=True, help="Add the page text as a last CSV column.")
@click.option(
    "--min-group-size",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Keep only pages and groups of duplicate groups with at least N members.",
)
@click.option(
    "--kind",
    "kinds",
    multiple=True,
    type=click.Choice(["url", "exact", "near"]),
    help="Keep only pages that joined their group this way (with their canonicals), and only "
    "these group lists. Repeatable.",
)
@click.option(
    "--max-groups",
    type=click.IntRange(min=1),
    default=200,
    show_default=True,
    metavar="N",
    help="Largest groups shown on the HTML review page.",
)
@click.option(
    "--topics",
    type=int,
    default=None,
    metavar="K",
    help="Cluster the canonical pages into K topics (TF-IDF, mini-batch k-means; needs "
    "webdedup[topics]): the JSON report gets topic_clusters and each document its cluster, "
    "the CSV a cluster column, the HTML page groups its duplicate groups by topic.",
)
@busy_timeout_option()
@quiet_option("Print nothing on success.")
def export_command(
    path: str,
    json_path: str | None,
    csv_path: str | None,
    html_path: str | None,
    datasette_path: str | None,
    parquet_dir: str | None,
    table: str | None,
    columns: tuple[str, ...],
    with_text: bool,
    min_group_size: int | None,
    kinds: tuple[str, ...],
    max_groups: int,
    topics: int | None,
    busy_timeout: float,
    quiet: bool,
) -> None:
    """Export the duplicate groups of the annotated crawl database PATH for review.

    Writes any of: a JSON report (meta, documents, near-duplicate pairs and groups, exact and
    URL duplicate groups; see schemas/report.schema.json), a CSV table with one row a page
    (text cells that a spreadsheet would run as a formula get a leading '), and an HTML
    review page with each group's canonical and members side by side, differences marked.
    PATH must have been through 'webdedup db'. The database is only read.

    \b
    Example:
        webdedup export crawl.sqlite --json report.json --csv pages.csv --html review.html
        webdedup export crawl.sqlite --csv near.csv --kind near --min-group-size 3 --with-text
        webdedup export crawl.sqlite --json - | jq '.meta.counts'
        webdedup export crawl.sqlite --datasette metadata.yml
        datasette crawl.sqlite --metadata metadata.yml
        webdedup export crawl.sqlite --json report.json --html review.html --topics 20
    """
    from .output import ExportFilters, export
    from .output.datasette import write_datasette_metadata

    if parquet_dir is not None:
        with errors_to_exit_codes():
            config = build_config(None, table, columns, busy_timeout=busy_timeout)
            done = Deduplicator(config=config).export_parquet(path, parquet_dir)
        if not quiet:
            for line in done.lines():
                click.echo(line, err=True)
    if datasette_path:
        with errors_to_exit_codes():
            write_datasette_metadata(path, datasette_path, busy_timeout=busy_timeout)
        if not quiet:
            click.echo(f"Datasette metadata: {datasette_path}", err=True)
    if not (json_path or csv_path or html_path):
        if parquet_dir is not None or datasette_path:
            return
        raise click.UsageError(
            "nothing to export: give at least one of --json, --csv, --html, --datasette, "
            "--parquet"
        )
    if json_path == "-" and csv_path == "-":
        raise click.UsageError("only one of --json and --csv can go to stdout ('-')")
    stdout = sys.stdout
    with errors_to_exit_codes():
        summary = export(
            path,
            json_path=stdout if json_path == "-" else json_path,
            csv_path=stdout if csv_path == "-" else csv_path,
            html_path=html_path,
            filters=ExportFilters(min_group_size=min_group_size, kinds=kinds),
            with_text=with_text,
            max_groups=max_groups,
            busy_timeout=busy_timeout,
            topics=topics,
        )
    if not quiet:
        for line in summary.lines():
            click.echo(line, err="-" in (json_path, csv_path))


@cli.command("review")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8321,
    show_default=True,
    help="Port to serve on (0: any free port, printed at start).",
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to serve on. The app has no login: keep it on 127.0.0.1.",
)
@busy_timeout_option()
def review_command(path: str, port: int, host: str, busy_timeout: float) -> None:
    """Review the duplicate groups of the annotated crawl database PATH in a browser.

    Serves a local app (stopped by Ctrl-C or SIGTERM) that pages through every group, largest
    first, with search (URL, title) and filters (kind, host, group size, lowest score,
    language when the table has a lang column), each group's canonical with its election
    values and each member's differences marked, the group-size and score pictures, and three
    verdicts: a member is a "duplicate" of its canonical, "not a duplicate", or should be the
    canonical. It opens on the queue: the pairs that need a person, those closest to the
    threshold first, canonical and member side by side, decided with the keyboard (a, n, c;
    j/k next/previous; u undo). Verdicts are stored in the database (table
    _webdedup_verdicts), every later 'webdedup db' run, full or incremental, honours them,
    and 'webdedup calibrate' holds them against each threshold.

    \b
    Example:
        webdedup review crawl.sqlite            # then open http://127.0.0.1:8321/queue
        webdedup review crawl.sqlite --port 0   # any free port
    """
    from .review import serve

    def ready(url: str) -> None:
        click.echo(f"webdedup review: serving {path} at {url}queue (Ctrl-C stops it)")

    with errors_to_exit_codes():
        try:
            serve(path, host=host, port=port, busy_timeout=busy_timeout, on_ready=ready)
        except OSError as exc:
            raise ConfigError(
                f"cannot serve on {host}:{port} ({exc.strerror or exc}); choose another "
                "--port (0 picks a free one)"
            ) from exc
    click.echo("webdedup review: stopped")


@cli.command("explain")
@click.argument("path", type=click.Path(dir_okay=False))
@click.argument("page_a")
@click.argument("page_b")
@json_option("Print the explanation as JSON.")
@busy_timeout_option()
def explain_command(
    path: str, page_a: str, page_b: str, as_json: bool, busy_timeout: float
) -> None:
    """Explain why two pages of PATH are (or are not) in one duplicate group.

    PAGE_A and PAGE_B are page ids or URLs (looked up as crawled, then by canonical form).
    Shows both canonical URLs and content hashes, the MinHash estimate, the Jaccard
    similarity of word shingles, the Levenshtein ratio and the SimHash similarity, the chain
    of URL/exact/near-duplicate links between them, and which page the election prefers and
    on which key.

    \b
    Example:
        webdedup explain crawl.sqlite 12 40
        webdedup explain crawl.sqlite https://example.com/a https://www.example.com/a/ --json
    """
    from .output import explain_pair, format_explanation

    with errors_to_exit_codes():
        explanation = explain_pair(path, page_a, page_b, busy_timeout=busy_timeout)
    if as_json:
        click.echo(json.dumps(explanation, indent=2, ensure_ascii=False))
    else:
        click.echo(format_explanation(explanation))


@cli.command("calibrate")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option(
    "--labels",
    type=click.Path(dir_okay=False, allow_dash=True),
    default=None,
    metavar="FILE",
    help="Also write the verdicts as labelled pairs, one JSON object a line (a, b, duplicate, "
    "score, verdict), as 'python -m benchmarks.corpus.evaluate --labels' reads them ('-': "
    "standard output).",
)
@json_option("Print the contradictions at each threshold as JSON.")
@busy_timeout_option()
def calibrate_command(path: str, labels: str | None, as_json: bool, busy_timeout: float) -> None:
    """Hold the reviewer verdicts of PATH against each threshold from 0.70 to 0.99.

    Each verdict on a pair is a label: "duplicate" and "make this the canonical" say the two
    pages are one, "not a duplicate" says they are not. A threshold contradicts a duplicate
    pair whose score (the run's verified similarity, kept with the verdict) is under it, and
    a not-duplicate pair whose score is at or above it. Prints how many verdicts each
    threshold contradicts and the one that contradicts the fewest (the middle of the longest
    run of such thresholds): the threshold that fits this crawl.

    \b
    Example:
        webdedup calibrate crawl.sqlite
        webdedup calibrate crawl.sqlite --labels pairs.jsonl
    """
    from .review.calibrate import calibrate_db, write_labels

    with errors_to_exit_codes():
        result = calibrate_db(path, busy_timeout=busy_timeout)
    if labels is not None:
        with click.open_file(labels, "w", encoding="utf-8") as out:
            written = write_labels(result.labels, out)
        if labels != "-":
            click.echo(f"wrote {plural(written, 'labelled pair')} to {labels}", err=as_json)
    if as_json:
        click.echo(json.dumps({
            "contradictions": {f"{t:.2f}": n for t, n in result.contradictions.items()},
            "best": result.best,
            "best_range": result.best_range,
            "verdicts": len(result.labels),
            "scored": result.scored,
            "run_threshold": result.run_threshold,
        }, indent=2))
    elif labels != "-":
        click.echo(result.report())


@cli.command("segments")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--host", default=None, help="Only the segments of this host, e.g. example.com.")
@click.option(
    "--min-pages",
    type=int,
    default=None,
    metavar="N",
    help="List segments on at least N pages of their host [default: the last run's "
    "--segment-min-pages, 3].",
)
@click.option("--limit", type=int, default=20, show_default=True, help="List at most K.")
@json_option("Print the segments as JSON.")
@busy_timeout_option()
def segments_command(
    path: str,
    host: str | None,
    min_pages: int | None,
    limit: int,
    as_json: bool,
    busy_timeout: float,
) -> None:
    """List the lines repeated on many pages of one host in PATH (site boilerplate).

    A segment is one line of a page's text (whitespace collapsed) of 20 characters or more;
    'webdedup db --count-segments' (or --strip-segments) counts on how many pages of its host
    each one is. Shows each repeated segment's page count, its share of the host's pages and
    its text. The database is only read.

    \b
    Example:
        webdedup db crawl.sqlite --count-segments
        webdedup segments crawl.sqlite
        webdedup segments crawl.sqlite --host example.com --min-pages 10 --limit 50
        webdedup segments crawl.sqlite --json | jq '.segments[].sample'
    """
    from .output.segments import list_segments

    with errors_to_exit_codes():
        found = list_segments(
            path, host=host, min_pages=min_pages, limit=limit, busy_timeout=busy_timeout
        )
    if as_json:
        click.echo(json.dumps(found.as_dict(), indent=2, ensure_ascii=False))
    else:
        click.echo("\n".join(found.lines()))


@cli.command("daft")
@click.argument("inputs", nargs=-1, required=True)
@click.option(
    "--out",
    required=True,
    type=click.Path(file_okay=False),
    help="New directory for the result (Parquet; 'webdedup db --assignments' reads it).",
)
@click.option(
    "--ray-address",
    default=None,
    metavar="ADDRESS",
    help="Run on a Ray cluster: auto (the one this machine belongs to), HOST:PORT or "
    "ray://HOST:PORT [default: Daft's native runner on this machine].",
)
@click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False),
    default=None,
    help="A TOML file with webdedup's options (the same file as for 'webdedup db').",
)
@click.option(
    "--column",
    "columns",
    multiple=True,
    metavar="NAME=COLUMN",
    help="The Parquet's name for an input column, e.g. content=body (as for 'webdedup db'; "
    "the page id column is 'id'). Repeatable.",
)
@setting_option("threshold")
@set_option
@click.option("--min-words", "moved_min_words", hidden=True, expose_value=False,
              callback=_moved_to_set, help="Moved: --set min_words=VALUE.")
@click.option(
    "--s3-endpoint",
    default=None,
    metavar="URL",
    help="An S3-compatible server for s3:// paths, e.g. http://127.0.0.1:9000 "
    "[default: $AWS_ENDPOINT_URL, else AWS]. Keys: $AWS_ACCESS_KEY_ID, $AWS_SECRET_ACCESS_KEY.",
)
@click.option(
    "--s3-region", default=None, metavar="NAME", help="The bucket's region [default: $AWS_REGION]."
)
@click.option(
    "--s3-anonymous", is_flag=True, default=False, help="Read a public bucket without credentials."
)
@quiet_option("Print nothing on success.")
@json_option("Print the run's result as JSON.")
def daft_command(
    inputs: tuple[str, ...],
    out: str,
    ray_address: str | None,
    config_file: str | None,
    columns: tuple[str, ...],
    quiet: bool,
    as_json: bool,
    s3_endpoint: str | None,
    s3_region: str | None,
    s3_anonymous: bool,
    set_pairs: tuple[str, ...],
    **options: Any,
) -> None:
    """Deduplicate Parquet pages on Daft (this machine, or a Ray cluster) into OUT.

    INPUTS are Parquet files or globs (local, or s3://bucket/... as OUT can be too) with an
    integer 'id' column, a URL column and a text (or HTML) column. The phases and rules are
    'webdedup db''s, with the same result, reviewers' verdicts and language guard included;
    only method minhash.

    \b
    Example:
        webdedup export crawl.sqlite --parquet pages/
        webdedup daft 'pages/*.parquet' --out assignments/
        webdedup db crawl.sqlite --assignments assignments/
        webdedup daft 's3://bucket/pages/*.parquet' --out s3://bucket/assignments/
    """
    try:
        with errors_to_exit_codes():
            config = build_config(config_file, None, columns, set_pairs, **options)
            say = None if quiet or as_json else (lambda line: click.echo(line, err=True))
            result = Deduplicator(config=config).run_on_parquet(
                list(inputs), out, ray_address=ray_address, s3_endpoint=s3_endpoint,
                s3_region=s3_region, s3_anonymous=s3_anonymous, on_message=say,
            )
    except click.ClickException as exc:
        _leave_after_daft(exc)
        raise
    if as_json:
        click.echo(json.dumps(asdict(result), indent=2))
    elif not quiet:
        click.echo(result.summary())


def _leave_after_daft(exc: click.ClickException) -> None:
    """Say a failed ``daft`` run's error and end the process at once, with its exit code,
    when it runs as the ``webdedup`` program and Daft was loaded: Daft's native threads may
    still be winding down after a failed write, and Python's shutdown then sometimes aborted
    the process ("PyGILState_Release", SIGABRT) after the message, losing the exit code.
    (Not inside another program, such as a test's CliRunner: that one goes on.)"""
    if "daft" not in sys.modules:
        return
    if click.get_current_context().find_root().info_name != "webdedup":
        return
    exc.show()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(exc.exit_code)


@cli.command("stats")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--runs", type=int, default=5, show_default=True, help="How many last runs to list.")
@click.option("--state", is_flag=True,
              help="Also count the rows and bytes of webdedup's own tables: a pass over each "
                   "(0.3 s more at a million pages, 4.7 s at ten million).")
@json_option("Print the statistics as JSON.")
def stats_command(path: str, runs: int, state: bool, as_json: bool) -> None:
    """Counts by kind, group-size histogram, the last runs and the changes waiting; with
    --state, the size of webdedup's state.

    \b
    Example:
        webdedup stats crawl.sqlite
        webdedup stats crawl.sqlite --runs 20 --json
        webdedup stats crawl.sqlite --state
    """
    from .output.stats import collect_stats, format_stats

    with errors_to_exit_codes():
        result = collect_stats(path, runs=runs, state=state)
    click.echo(json.dumps(result.as_dict(), indent=2) if as_json else format_stats(result))


@cli.command("restore")
@click.argument("path", type=click.Path(dir_okay=False))
@table_option
@busy_timeout_option()
def restore_command(path: str, table: str | None, busy_timeout: float) -> None:
    """Put the pages removed by 'webdedup db --prune' back into the pages table.

    Every page goes back under its original id. When that is not possible for some (the
    crawler has since written a new page under the id, or re-crawled the URL into a UNIQUE
    column, or reused the id for a page pruned too: two copies), they are listed with the
    reason, nothing is restored, and the exit code is 3.
    A table without an INTEGER PRIMARY KEY has no stable ids (VACUUM renumbers its rowids):
    there a page whose rowid is taken goes back under a new one, and the command says so.

    \b
    Example:
        webdedup restore crawl.sqlite
    """
    with errors_to_exit_codes():
        config = build_config(None, table, (), busy_timeout=busy_timeout)
        n = Deduplicator(config=config).restore(
            path, on_message=lambda line: click.echo(f"note: {line}", err=True)
        )
    click.echo(f"restored {plural(n, 'page')}")


def main() -> None:  # pragma: no cover - the console script
    cli(prog_name="webdedup")


if __name__ == "__main__":  # pragma: no cover
    main()
