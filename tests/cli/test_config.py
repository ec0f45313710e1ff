"""The configuration: every bad value is a ConfigError (exit 2 from the CLI) that names the
key and what it needs, whether it comes from the API, a TOML file or an option."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from conftest import make_page

from webdedup import Config, Deduplicator
from webdedup.api import crawler_defaults
from webdedup.cli import cli
from webdedup.errors import ConfigError


@pytest.mark.parametrize(
    ("values", "words"),
    [
        ({"threshold": "high"}, "threshold must be a number"),
        ({"workers": "two"}, "workers must be an integer"),
        ({"distance": True}, "distance must be an integer"),
        ({"discard_params": "yes"}, "discard_params must be true or false"),
        ({"urls_to_ignore": "tag"}, "urls_to_ignore must be a list"),
        ({"urls_to_ignore": ["tag", 3]}, "urls_to_ignore must be a list of patterns (strings)"),
        ({"urls_to_ignore": ["a//b"]}, "invalid ignore pattern 'a//b'"),
        ({"election": "newer_crawled"}, "election must be a list"),
        ({"busy_timeout": "5s"}, "busy_timeout must be a number of seconds"),
        ({"chunk_size": 0}, "chunk_size must be at least 1"),
        ({"workers": -1}, "workers must be 0"),
    ],
)
def test_bad_values_name_the_key_and_the_type(values, words):
    with pytest.raises(ConfigError, match=words.replace("(", r"\(").replace(")", r"\)")):
        Config.from_mapping(values)


def _toml(tmp_path, text):
    path = tmp_path / "webdedup.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "text",
    ['threshold = "high"\n', 'workers = "two"\n', 'urls_to_ignore = "tag"\n'],
)
def test_wrong_types_in_toml_exit_2_with_the_key(db_builder, tmp_path, text):
    path = db_builder([make_page("https://a.example/1", "one two three")])
    config = _toml(tmp_path, text)
    result = CliRunner().invoke(cli, ["db", str(path), "-q", "--config", str(config)])
    assert result.exit_code == 2, result.output
    assert text.split(" =")[0] in result.output
    assert "Traceback" not in result.output


def test_a_bad_ignore_rule_on_the_command_line_is_exit_2(db_builder):
    path = db_builder([make_page("https://a.example/a/x/b", "one two three")])
    result = CliRunner().invoke(cli, ["db", str(path), "-q", "--ignore", "a//b"])
    assert result.exit_code == 2, result.output
    assert "a//b" in result.output


def test_explicit_parameters_win_over_the_config():
    d = Deduplicator(threshold=0.5, config=Config(threshold=0.8, distance=7))
    assert d.build_config().threshold == 0.5
    assert d.build_config().distance == 7  # not given: the config's
    assert Deduplicator(config=Config(threshold=0.8)).build_config().threshold == 0.8
    assert Deduplicator(config=Config()).build_config() == Config()
    # without a config: the defaults of the API the Deduplicator follows (issue 30)
    assert Deduplicator().build_config() == crawler_defaults()


def test_chunk_size_is_the_prepare_batch(monkeypatch, db_builder):
    """--chunk-size is read: phase 1 hands batches of that many pages to its workers."""
    from webdedup.pipeline import phase1_prepare

    sizes: list[int] = []
    real = phase1_prepare.prepare_batch

    def spy(job, pages):
        sizes.append(len(pages))
        return real(job, pages)

    monkeypatch.setattr(phase1_prepare, "prepare_batch", spy)
    path = db_builder([make_page(f"https://a.example/{i}", f"text {i}") for i in range(10)])
    Deduplicator(chunk_size=3).run_on_db(path)
    assert sizes == [3, 3, 3, 1]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"busy_timeout": float("nan")},
        {"busy_timeout": float("inf")},
        {"seed": -1},
        {"num_perm": 1 << 20},
        {"distance": 2**63},
        {"columns": {"url": ""}},
        {"columns": {"url": 5}},
    ],
)
def test_values_out_of_range_are_config_errors(kwargs):
    with pytest.raises(ConfigError):
        Config(**kwargs)


def test_the_api_takes_a_columns_dict_and_refuses_one_string_of_rules():
    assert Deduplicator(columns={"content": "body"}).build_config().columns.content == "body"
    with pytest.raises(ConfigError, match="not the string 'tag'"):
        Deduplicator(urls_to_ignore="tag")


def test_busy_timeout_nan_is_a_usage_error(db_builder):
    path = db_builder([make_page("https://a.example/1", "one two three")])
    for command in (["db", str(path)], ["export", str(path), "--json", "-"]):
        result = CliRunner().invoke(cli, [*command, "--busy-timeout", "nan"])
        assert result.exit_code == 2 and "not a number of seconds" in result.output


def test_a_database_of_the_older_tokenization_is_rebuilt(monkeypatch, db_builder):
    """Stored hashes and signatures of normalization version 2 (CJK shingles of five
    characters) must not meet version 3's trigrams: the next run is a full one."""
    import webdedup.config as config_module
    from webdedup.algorithms.text import NORMALIZATION_VERSION

    assert NORMALIZATION_VERSION == 3
    db = db_builder([make_page(f"https://a.example/{i}", f"page {i} text") for i in range(3)])
    monkeypatch.setattr(config_module, "NORMALIZATION_VERSION", 2)
    assert Deduplicator().run_on_db(db).mode == "full"
    assert Deduplicator().run_on_db(db).mode == "incremental"  # same version: nothing to redo
    monkeypatch.setattr(config_module, "NORMALIZATION_VERSION", NORMALIZATION_VERSION)
    assert Deduplicator().run_on_db(db).mode == "full"


def test_options_add_to_set_and_the_file_and_lists_forgive_a_trailing_comma(tmp_path):
    """--ignore adds to the TOML's and --set's lists; a comma list with a trailing comma is
    the list without it."""
    from webdedup.cli import build_config

    toml = tmp_path / "w.toml"
    toml.write_text('urls_to_ignore = ["tag"]\n')
    config = build_config(
        str(toml), None, (), ("urls_to_ignore=a,b",), urls_to_ignore=("c",),
        election="https,lower_id,", languages=None,
    )
    assert config.urls_to_ignore == ("a", "b", "c")
    assert config.election == ("https", "lower_id")


def test_a_full_run_names_an_option_turned_back_off():
    assert Config().changed_from(Config(strip_segments=True).shaping_parameters()) == [
        "--strip-segments on -> off"
    ]
    assert Config(strip_segments=True).changed_from(Config().shaping_parameters()) == [
        "--strip-segments off -> on"
    ]
    assert Config().changed_from(Config(ignore_match="substring").shaping_parameters()) == [
        "ignore_match substring -> segments"
    ]
