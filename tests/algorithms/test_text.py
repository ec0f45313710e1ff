"""Text normalization, hashing and timestamp parsing."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webdedup.algorithms.text import content_hash, digest_text, normalize_text, word_length
from webdedup.algorithms.timestamps import parse_timestamp


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("  Hello\u00a0\u00a0WORLD \n", "hello world"),
        ("Ｆｕｌｌｗｉｄｔｈ", "fullwidth"),  # NFKC
        ("Straße", "strasse"),  # case folding, not lower()
        ("ΣΊΣΥΦΟΣ", "σίσυφοσ"),
        ("Привет,\tМИР", "привет, мир"),  # Cyrillic kept
        ("東京都\u3000渋谷区", "東京都 渋谷区"),  # CJK kept, ideographic space collapsed
        ("مرحبا  بالعالم", "مرحبا بالعالم"),  # Arabic kept
        ("ﬁne ligature", "fine ligature"),
        ("", ""),
        ("It\u2019s \u2018odd\u2019", "it's 'odd'"),  # curly apostrophe and quotes
        ("\u201cQuoted\u201d \u201eauch\u201c \u00abcit\u00e9\u00bb", '"quoted" "auch" "cité"'),
        ("2010\u20132020 \u2014 a\u2212b", "2010-2020 - a-b"),  # dashes and minus
        ("a -- b --- c", "a - b - c"),  # typewriter dashes
        ("wait\u2026", "wait..."),  # ellipsis (NFKC)
        ("co\u00adop\u200beration\u2060\ufeff", "cooperation"),  # invisible format chars
        ("\uff02ｆｕｌｌ\uff02", '"full"'),  # full-width forms
        ("می\u200cخواهم", "می\u200cخواهم"),  # ZWNJ is part of Persian spelling: kept
        ("ภาษาไทย", "ภาษาไทย"),  # Thai kept
    ],
)
def test_normalize_text(raw, expected):
    assert normalize_text(raw) == expected


@settings(max_examples=300)
@given(st.text())
def test_normalize_is_idempotent_and_never_empties_letters(text):
    norm = normalize_text(text)
    assert normalize_text(norm) == norm
    assert "  " not in norm and norm == norm.strip()
    if any(ch.isalpha() for ch in text):
        assert any(ch.isalpha() for ch in norm)


def test_typographic_variants_hash_alike():
    plain = 'He said "it\'s 5-10 minutes..." -- and left.'
    cms = "He said \u201cit\u2019s 5\u201310 minutes\u2026\u201d \u2014 and\u00ad left.\u200b"
    assert content_hash(cms) == content_hash(plain)


@pytest.mark.parametrize(
    "text, words",
    [
        ("one two three", 3),
        ("東京都渋谷区", 3),  # two Han/Kana characters make a word
        ("ภาษาไทยดี", 2),  # five Thai code points make a word (rounded up)
        ("東京 tokyo 2024", 3),
        ("", 0),
    ],
)
def test_word_length_means_the_same_in_every_script(text, words):
    assert word_length(normalize_text(text)) == words
    assert digest_text(text).n_words == words


def test_pinned_content_hashes():
    # Pinned values: a change in normalization shows up here, deliberately.
    assert content_hash("Hello   World") == "2aae6c35c94fcfb415dbe95f408b9ce91ee846ed"
    assert content_hash("HELLO world\n") == content_hash("hello world")
    assert content_hash("Straße") == hashlib.sha1(b"strasse").hexdigest()
    assert content_hash("") == hashlib.sha1(b"").hexdigest()


@settings(max_examples=100)
@given(
    st.lists(
        st.sampled_from(["a", "B", "ß", "ﬁ", "Σ", " ", "\n", "\u00a0", "x" * 7, "東"]), max_size=200
    ),
    st.integers(min_value=3, max_value=40),
)
def test_piecewise_digest_equals_whole_digest(parts, piece):
    text = "".join(parts)
    whole = normalize_text(text)
    d = digest_text(text, piece_chars=piece)
    assert d.sha1 == hashlib.sha1(whole.encode()).hexdigest()
    assert d.n_chars == len(whole)
    assert d.n_words == word_length(whole)
    assert d.sketch == whole[: len(d.sketch)]


@pytest.mark.parametrize(
    "value, expected",
    [
        ("2024-01-02T00:00:00Z", 1704153600.0),
        ("2024-01-02T01:00:00+01:00", 1704153600.0),
        ("2024-01-02", 1704153600.0),
        ("20240102000000", 1704153600.0),
        ("Tue, 02 Jan 2024 00:00:00 GMT", 1704153600.0),
        ("1704153600", 1704153600.0),
        (1704153600, 1704153600.0),
        (1704153600000, 1704153600.0),
        ("garbage", None),
        ("2024-13-45", None),
        (None, None),
        ("", None),
        (float("nan"), None),
    ],
)
def test_parse_timestamp(value, expected):
    assert parse_timestamp(value) == expected


@given(st.one_of(st.text(), st.integers(), st.floats(), st.binary(), st.none()))
def test_parse_timestamp_never_raises(value):
    parse_timestamp(value)


def _parse_in_order(s: str) -> float | None:
    """parse_timestamp's formats tried in their order, with no ISO 8601 shortcut (what it
    gave before it had one)."""
    import email.utils
    import re
    from datetime import datetime, timezone

    def epoch(dt: datetime) -> float:
        return (dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)).timestamp()

    s = s.strip()
    try:
        if re.match(r"^\d{8}(\d{2}(\d{2}(\d{2})?)?)?$", s):
            try:
                fmt = "%Y%m%d%H%M%S"[: {8: 6, 10: 8, 12: 10, 14: 12}[len(s)]]
                return epoch(datetime.strptime(s, fmt))
            except ValueError:
                pass
        if re.fullmatch(r"-?\d+(\.\d+)?", s):
            return parse_timestamp(float(s))
        try:
            return epoch(datetime.fromisoformat(s[:-1] + "+00:00" if s.endswith(("Z", "z")) else s))
        except ValueError:
            pass
        try:
            return epoch(email.utils.parsedate_to_datetime(s))
        except (TypeError, ValueError, IndexError):
            return None
    except (ValueError, OverflowError, OSError, KeyError):
        return None


_iso = st.builds(
    lambda dt, sep, tail, junk: dt.isoformat(sep=sep) + tail + junk,
    st.datetimes(min_value=__import__("datetime").datetime(1, 1, 1)),
    st.sampled_from(["T", " ", "t"]),
    st.sampled_from(["", "Z", "z", "+00:00", "-05:30", "+14:00", ".123", "+2400"]),
    st.one_of(st.just(""), st.text(max_size=3)),
)


@given(st.one_of(_iso, st.from_regex(r"\A\d{4}-[\d:T .Z+-]{6,30}\Z"), st.text(max_size=40)))
def test_iso_dates_parse_as_every_format_tried_in_order_parses_them(value):
    """The shortcut for ISO 8601 strings (most crawlers' dates) gives what trying every
    format in turn gives, for any string that looks like one."""
    assert parse_timestamp(value) == _parse_in_order(value)


@settings(deadline=None)  # (the first example may load the compiled normalizer)
@given(
    st.text(st.characters(codec="utf-8"))
    | st.text(alphabet=" \t\n\x1c\x85\u3000ab-", max_size=40)
    | st.lists(st.sampled_from(["a", "b", "c", "\t", " "]), max_size=60).map("".join)
)
def test_repetitive_counts_the_words_of_a_normalized_text(text):
    # sketch._repetitive counts a normalized text's words by its spaces (no list of words),
    # of a whole text and of its sketch (capped: it may end in a space)
    from webdedup.algorithms.shingles import shingle_hashes
    from webdedup.algorithms.sketch import REPEATED_SHINGLES, NearSpec, _repetitive

    spec = NearSpec("minhash", 0.8, 0.5, "overlap", 0, 2, 16, 1, 50, 4, 4, 6)
    norm = normalize_text(text)
    for cut in {len(norm), *(i + 1 for i, ch in enumerate(norm) if ch == " ")}:
        capped = norm[:cut]
        hashes = shingle_hashes(capped, spec.shingle_size)
        split = hashes.size < REPEATED_SHINGLES * (len(capped.split()) - spec.shingle_size + 1)
        assert _repetitive(hashes, capped, spec) == split
        assert _repetitive(hashes, capped.encode("utf-8", "surrogatepass"), spec) == split
