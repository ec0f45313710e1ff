"""The manual's generated pages agree with the code, and every option is defined once.

``docs/cli.md`` and ``docs/settings.md`` are made by ``python -m webdedup.reference docs/``
from the click commands and :class:`~webdedup.config.Setting`; a changed option, help text or
default without the pages made anew fails here (as sqlite-utils checks its CLI reference
with cog). ``scripts/test`` also builds the whole manual with ``mkdocs build --strict``.
"""

from __future__ import annotations

import re
from dataclasses import fields

import pytest
from click.testing import CliRunner
from conftest import ROOT, crawl_with_duplicates

from webdedup.cli import cli, setting_option
from webdedup.config import Config, default_of, settings
from webdedup.reference import cli_reference, settings_reference

DOCS = ROOT / "docs"
REMAKE = "run: python -m webdedup.reference docs/"


def test_the_cli_reference_is_the_help_of_every_command() -> None:
    assert (DOCS / "cli.md").read_text(encoding="utf-8") == cli_reference(), REMAKE


def test_the_configuration_reference_is_made_from_the_settings() -> None:
    assert (DOCS / "settings.md").read_text(encoding="utf-8") == settings_reference(), REMAKE


def test_the_report_schema_page_is_made_from_the_schema() -> None:
    from webdedup.reference import report_schema, schema_reference

    text = (DOCS / "report-schema.md").read_text(encoding="utf-8")
    assert text == schema_reference(report_schema()), REMAKE
    assert "| `near_duplicate_groups` |" in text


def test_the_cli_reference_check_fails_on_a_changed_option() -> None:
    """The check above can fail: a help text changed after the page was made."""
    import click

    before = cli_reference()
    extra = click.Option(["--made-up-option"], help="An option the page does not have.")
    db = cli.commands["db"]  # type: ignore[attr-defined]
    db.params.append(extra)
    try:
        assert cli_reference() != before
    finally:
        db.params.remove(extra)
    assert cli_reference() == before


def test_every_key_is_defined_once_with_help_and_a_range_check() -> None:
    specs = settings()
    assert set(specs) == {f.name for f in fields(Config)} - {"columns"}
    for name, spec in specs.items():
        assert spec.help and spec.help[-1] == ".", name
        assert spec.option in ("everyday", "tuning"), name
        Config(**{name: default_of(name)})  # the default passes its own checks


def db_help() -> str:
    res = CliRunner().invoke(cli, ["db", "--help"], terminal_width=200)
    assert res.exit_code == 0
    return " ".join(res.output.split())


def test_db_help_shows_the_everyday_options_with_the_defaults_a_run_uses() -> None:
    text = db_help()
    for name, spec in settings().items():
        flag = spec.flag or "--" + name.replace("_", "-")
        if spec.option == "everyday":
            assert flag in text, name
        else:  # the tuning knobs: --set and TOML only
            assert f"{flag} " not in text and f"{flag}/" not in text, name
    # the [default: ...] texts come from the fields: the LSH level a run at 0.9 uses is 0.3,
    # derived from the threshold
    assert default_of("lsh_threshold") is None and Config().lsh_level == 0.3
    assert "[default: 0.9]" in " ".join(setting_option("threshold")(lambda: None)
                                        .__click_params__[0].help.split())  # type: ignore
    assert "| `lsh_threshold` | number | `0.3 from threshold 0.9 up" in settings_reference()


def test_set_reaches_every_key_and_names_an_unknown_one(db_builder) -> None:
    path = db_builder(crawl_with_duplicates(12))
    res = CliRunner().invoke(
        cli, ["db", str(path), "--quiet", "--json", "--set", "lsh_threshold=0.35",
              "--set", "similarity=jaccard", "--set", "chunk_size=7",
              "--set", "election=lower_id"],
    )
    assert res.exit_code == 0, res.output
    import sqlite3

    with sqlite3.connect(path) as conn:
        stored = conn.execute(
            "SELECT value FROM _webdedup_meta WHERE key = 'config'"
        ).fetchone()[0]
    conn.close()
    assert '"lsh_threshold": 0.35' in stored and '"similarity": "jaccard"' in stored
    assert '"election": ["lower_id"]' in stored
    bad = CliRunner().invoke(cli, ["db", str(path), "--set", "lsh_treshold=0.35"])
    assert bad.exit_code == 2
    assert "unknown key 'lsh_treshold'" in bad.output and "lsh_threshold" in bad.output
    worse = CliRunner().invoke(cli, ["db", str(path), "--set", "lsh_threshold=1.5"])
    assert worse.exit_code == 2 and "lsh_threshold must be in (0, 1)" in worse.output


@pytest.mark.parametrize("page", sorted(p.name for p in DOCS.glob("*.md")))
def test_every_page_of_the_manual_is_in_its_navigation(page: str) -> None:
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert re.search(rf":\s*{re.escape(page)}\s*$", nav, re.MULTILINE), page


def test_a_former_option_of_a_tuning_knob_says_how_to_give_it_now(tmp_path) -> None:
    res = CliRunner().invoke(cli, ["db", str(tmp_path / "x.sqlite"), "--lsh-threshold", "0.35"])
    assert res.exit_code == 2
    assert "--set lsh_threshold=0.35" in res.output
