"""Tests for webdedup.algorithms.shingles (word n-gram hashing and exact Jaccard)."""

import subprocess
import sys

import numpy as np
import pytest
from conftest import ROOT, normalized_texts

from webdedup.algorithms.shingles import jaccard, shingle_hashes, shingle_set
from webdedup.algorithms.text import tokens


def _real_texts(n: int, **kw: int) -> list[str]:
    return normalized_texts(n, **({"min_words": 200} | kw))


def test_counts_and_dtype():
    h = shingle_hashes("a b c d e f g", size=5)
    assert h.dtype == np.uint64
    assert h.size == 3
    assert np.all(h[1:] > h[:-1])  # sorted and unique


def test_repeated_shingles_are_unique():
    assert shingle_hashes("a b a b a b a b", size=2).size == 2


def test_short_and_empty_texts():
    assert shingle_hashes("").size == 0
    assert shingle_hashes("   ").size == 0
    one = shingle_hashes("two words", size=5)
    assert one.size == 1
    # the short shingle is not one of the shingles of a longer text containing it
    assert not set(one.tolist()) & shingle_set("x y z two words", size=5)
    assert shingle_hashes("two words", size=5)[0] != shingle_hashes("words two", size=5)[0]


def test_order_and_word_count_matter():
    assert shingle_set("a b c", 3) != shingle_set("c b a", 3)
    assert shingle_set("a b", 2) != shingle_set("a b", 1)


def test_tokens_are_str_split():
    # any whitespace separates words, like str.split()
    assert shingle_set("a b c d e f") == shingle_set("a\tb\nc  d\u3000e\x1cf")
    assert shingle_set("x y") == shingle_set(" x  y ")


def test_stable_values_pinned():
    # A change of the hashing scheme changes every stored shingle: it must be deliberate.
    assert shingle_hashes("the quick brown fox jumps", 5).tolist() == [PINNED_FOX]
    assert shingle_hashes("a", 5).tolist() == [PINNED_A]


PINNED_FOX = 15183105509016565314
PINNED_A = 9780058049294444098


def test_deterministic_across_processes():
    code = (
        "from webdedup.algorithms.shingles import shingle_hashes;"
        "print(shingle_hashes('grüße aus köln und bonn heute', 3).tolist())"
    )
    env_root = str(ROOT)
    values = set()
    for seed in ("1", "2"):
        out = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            cwd=env_root,
            env={"PYTHONPATH": env_root, "PYTHONHASHSEED": seed},
        ).stdout
        values.add(out)
    assert len(values) == 1
    assert values.pop().strip() == str(shingle_hashes("grüße aus köln und bonn heute", 3).tolist())


def test_bad_arguments():
    with pytest.raises(ValueError, match="size"):
        shingle_hashes("a b", size=0)
    with pytest.raises(ValueError, match="size"):
        shingle_hashes("a b", size=True)
    with pytest.raises(ValueError, match="str"):
        shingle_hashes(b"a b")
    with pytest.raises(ValueError, match="set"):
        jaccard([1, 2], {1})


def test_jaccard_values():
    assert jaccard({1, 2, 3}, {2, 3, 4}) == 0.5
    assert jaccard(set(), set()) == 0.0
    assert jaccard({1}, set()) == 0.0
    a = np.array([1, 2, 2, 3], dtype=np.uint64)
    b = np.array([3, 4], dtype=np.uint64)
    assert jaccard(a, b) == 0.25
    assert jaccard(a, {3, 4}) == 0.25


def test_real_texts_edit_and_no_collisions():
    texts = _real_texts(40)
    for text in texts[:5]:
        words = text.split()
        edited = " ".join(words[:100] + ["inserted"] + words[100:])
        sa, sb = shingle_set(text), shingle_set(edited)
        # one inserted word changes at most `size` shingles and adds at most 5
        assert len(sa - sb) <= 5
        assert len(sb - sa) <= 5
        assert jaccard(sa, sb) > 0.95
    # distinct 5-grams get distinct hashes on real text (no 64-bit collisions expected)
    grams: dict[int, tuple[str, ...]] = {}
    for text in texts:
        words = text.split()
        for k in range(len(words) - 4):
            gram = tuple(words[k : k + 5])
            h = shingle_hashes(" ".join(gram))[0]
            assert grams.setdefault(int(h), gram) == gram
    assert shingle_set(texts[0]) == {int(h) for h in shingle_hashes(texts[0])}
    assert len(shingle_set(texts[0])) == len(
        {tuple(texts[0].split()[k : k + 5]) for k in range(len(texts[0].split()) - 4)}
    )


def test_unrelated_real_texts_are_dissimilar():
    texts = _real_texts(10)
    assert jaccard(shingle_set(texts[0]), shingle_set(texts[5])) < 0.05


# Scripts written without spaces: no such texts in ../shared/data for Thai, Lao, Khmer or
# Burmese (only Chinese and Japanese ones), so their tokens are pinned here by definition.
UNSPACED_SAMPLES = {
    "thai": "ภาษาไทยเป็นภาษาราชการของประเทศไทย",
    "lao": "ພາສາລາວເປັນພາສາທາງການຂອງລາວ",
    "khmer": "ភាសាខ្មែរជាភាសាផ្លូវការនៃកម្ពុជា",
    "burmese": "မြန်မာဘာသာစကားသည်မြန်မာနိုင်ငံ၏ရုံးသုံးဘာသာစကားဖြစ်သည်",
    "chinese": "中华人民共和国的首都是北京市",
    "japanese": "日本の首都は東京都であるとされている",
}


@pytest.mark.parametrize("script", sorted(UNSPACED_SAMPLES))
def test_unspaced_scripts_are_shingled_on_character_trigrams(script):
    text = UNSPACED_SAMPLES[script]
    assert tokens(text) == list(text)  # one token per character (code point)
    trigrams = {text[i : i + 3] for i in range(len(text) - 2)}
    assert shingle_hashes(text, 5).size == len(trigrams)
    # spaces between the characters change nothing: the characters are the tokens
    assert np.array_equal(shingle_hashes(" ".join(text), 5), shingle_hashes(text, 5))
    # a character changed in the middle breaks three shingles (a word shingle: five)
    mid = len(text) // 2
    edited = text[:mid] + ("a" if script != "chinese" else "东") + text[mid + 1 :]
    assert len(shingle_set(text) - shingle_set(edited)) <= 3


NAV = (
    "首页 | 新闻 | 财经 | 体育 | 娱乐 | 科技 | 汽车 | 房产 | 教育 | 旅游 | 健康 | 军事 | "
    "国际 | 社会 | 文化 | 读书 | 视频 | 图片 | 专题 | 论坛 | 博客 | 会员中心 | 网站地图"
)


def test_real_chinese_and_japanese_copies_with_edited_characters_are_verified():
    """Real CJK texts with 3 % of their characters replaced and another navigation bar on
    top: their trigram overlap stays above the threshold (5-character shingles fell below),
    and they are contained in the copy (the navigation keeps their Levenshtein ratio low)."""
    import gzip
    import json
    import re
    from random import Random

    from conftest import SHARED_DATA

    from webdedup.algorithms.sketch import features, verify
    from webdedup.algorithms.text import normalize_text
    from webdedup.config import Config

    han = re.compile("[\u3040-\u30ff\u4e00-\u9fff]")
    with gzip.open(SHARED_DATA / "texts.jsonl.gz", "rt", encoding="utf-8") as fh:
        texts = [json.loads(line)["text"] for line in fh]
    cjk = sorted({t for t in texts if len(han.findall(t)) > 0.5 * len(t) and len(t) >= 600})
    assert len(cjk) >= 8
    spec = Config().near_spec()
    rng = Random(12)
    for n, text in enumerate(cjk):
        text = text[:1500]
        chars = list(text)
        spots = [i for i, c in enumerate(chars) if han.match(c)]
        for i in rng.sample(spots, int(0.03 * len(spots))):
            chars[i] = text[rng.choice(spots)]
        copy = NAV + "\n" + "".join(chars)
        a, b = normalize_text(text), normalize_text(copy)
        verdict = verify(spec, features(spec, a), features(spec, b))
        assert verdict.score >= spec.threshold, (n, verdict)
        assert verdict.measure == "contained", verdict  # framed by the navigation
