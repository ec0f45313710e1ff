"""Tests for webdedup.algorithms.minhash (signatures, serialization, LSH parameters, band keys)."""

import struct

import numpy as np
import pytest
from conftest import normalized_texts
from datasketch import MinHash
from datasketch.lsh import _optimal_param

from webdedup.algorithms.minhash import (
    EMPTY_VALUE,
    MinHasher,
    band_keys,
    band_keys_batch,
    deserialize,
    estimate_jaccard,
    optimal_lsh_params,
    serialize,
)
from webdedup.algorithms.shingles import jaccard, shingle_hashes


def _real_texts(n: int, **kw: int) -> list[str]:
    return normalized_texts(n, **({"min_words": 300} | kw))


def _edited(text: str, every: int) -> str:
    """Replace every `every`-th word, a spread-out edit."""
    words = text.split()
    return " ".join("edit" if k % every == 0 else w for k, w in enumerate(words))


def test_signature_matches_reference_formula():
    mh = MinHasher(num_perm=16, seed=5)
    a, b = mh.permutations
    assert all(int(ak) % 2 == 1 for ak in a)  # odd multipliers: each map is a bijection
    rng = np.random.default_rng(1)
    hashes = rng.integers(0, 2**64 - 1, size=300, dtype=np.uint64, endpoint=True)
    hashes[:3] = [0, 2**64 - 1, 2**32]
    folded = [(int(h) ^ (int(h) >> 32)) % 2**32 for h in hashes]
    expected = [  # exact big-integer arithmetic, against numpy's wrapping uint32
        min((int(ak) * x + int(bk)) % 2**32 for x in folded) for ak, bk in zip(a, b, strict=True)
    ]
    assert mh.signature(hashes).tolist() == expected


def test_deterministic_and_seed_dependent():
    h = shingle_hashes("one two three four five six seven eight nine ten")
    assert (MinHasher(64, 1).signature(h) == MinHasher(64, 1).signature(h)).all()
    assert not (MinHasher(64, 1).signature(h) == MinHasher(64, 2).signature(h)).all()
    assert MinHasher(64, 1) == MinHasher(64, 1)


def test_pinned_signature_values():
    sig = MinHasher(num_perm=4, seed=1).signature(np.array([1, 2, 3], dtype=np.uint64))
    assert sig.tolist() == PINNED_SIG


PINNED_SIG = [2157131744, 477743374, 788687101, 2552862776]


def test_empty_and_set_semantics():
    mh = MinHasher(num_perm=32)
    empty = mh.signature(np.array([], dtype=np.uint64))
    assert (empty == EMPTY_VALUE).all()
    assert estimate_jaccard(empty, empty) == 0.0
    assert estimate_jaccard(empty, mh.signature([1])) == 0.0
    assert (mh.signature([3, 1, 3, 2]) == mh.signature([1, 2, 3])).all()
    assert (mh.signature(np.array([1, 2], dtype=np.int64)) == mh.signature([1, 2])).all()


def test_batch_equals_single():
    mh = MinHasher(num_perm=48, seed=3)
    texts = _real_texts(6)
    arrays = [shingle_hashes(t) for t in texts]
    arrays.insert(2, np.array([], dtype=np.uint64))
    arrays.append(np.array([7], dtype=np.uint64))
    batch = mh.signatures(arrays)
    assert batch.shape == (len(arrays), 48)
    for row, arr in zip(batch, arrays, strict=True):
        assert (row == mh.signature(arr)).all()
    assert mh.signatures([]).shape == (0, 48)


def test_bad_arguments():
    with pytest.raises(ValueError, match="num_perm"):
        MinHasher(num_perm=0)
    with pytest.raises(ValueError, match="seed"):
        MinHasher(seed=-1)
    mh = MinHasher(num_perm=8)
    with pytest.raises(ValueError, match="non-negative"):
        mh.signature(np.array([-1, 2]))
    with pytest.raises(ValueError, match="1-D"):
        mh.signature(np.zeros((2, 2), dtype=np.uint64))
    with pytest.raises(ValueError, match="same MinHasher"):
        estimate_jaccard(mh.signature([1]), MinHasher(num_perm=16).signature([1]))
    with pytest.raises(ValueError, match="optimal_lsh_params"):
        band_keys(mh.signature([1]), bands=3, rows=3)
    with pytest.raises(ValueError, match="threshold"):
        optimal_lsh_params(1.5, 128)


def test_serialize_round_trip_and_layout():
    mh = MinHasher(num_perm=64, seed=42)
    sig = mh.signature(shingle_hashes(_real_texts(1)[0]))
    data = mh.serialize(sig)
    assert len(data) == 16 + 4 * 64  # version 4: uint32 values
    assert data[:4] == b"WDMH" and data[4] == 4 and data[5:8] == b"\0\0\0"
    assert struct.unpack_from("<II", data, 8) == (42, 64)
    assert struct.unpack_from("<I", data, 16)[0] == int(sig[0])
    back, meta = deserialize(data)
    assert (back == sig).all() and back.dtype == np.uint64
    assert (meta.version, meta.seed, meta.num_perm) == (4, 42, 64)
    # version 3 (uint64 values, what earlier releases stored) still reads
    wide = data[:4] + b"\x03" + data[5:16] + sig.astype("<u8").tobytes()
    assert (deserialize(wide)[0] == sig).all() and deserialize(wide)[1].version == 3
    assert (mh.deserialize(data) == sig).all()
    with pytest.raises(ValueError, match="seed=42"):
        MinHasher(num_perm=64, seed=1).deserialize(data)
    with pytest.raises(ValueError, match="truncated"):
        deserialize(data[:-1])
    with pytest.raises(ValueError, match="magic"):
        deserialize(b"XXXX" + data[4:])
    with pytest.raises(ValueError, match="version"):
        deserialize(data[:4] + b"\x09" + data[5:])
    empty = mh.signature([])
    assert serialize(empty, seed=42)[4] == 3  # EMPTY_VALUE does not fit 32 bits
    assert (deserialize(serialize(empty, seed=42))[0] == empty).all()


@pytest.mark.parametrize("num_perm", [64, 128, 256])
def test_optimal_lsh_params_match_datasketch(num_perm):
    for threshold in (0.5, 0.7, 0.8, 0.85, 0.9, 0.95):
        expected = _optimal_param(threshold, num_perm, 0.5, 0.5)
        assert optimal_lsh_params(threshold, num_perm) == expected, threshold


def test_optimal_lsh_params_weights_match_datasketch():
    for weights in ((0.2, 0.8), (0.9, 0.1)):
        assert optimal_lsh_params(0.8, 128, *weights) == _optimal_param(0.8, 128, *weights)


def test_quality_against_true_jaccard_and_datasketch():
    texts = _real_texts(4)
    mh = MinHasher(num_perm=256, seed=1)
    for text, every in zip(texts, (7, 11, 19, 40), strict=True):
        a, b = shingle_hashes(text), shingle_hashes(_edited(text, every))
        true = jaccard(a, b)
        ours = estimate_jaccard(mh.signature(a), mh.signature(b))
        ds_a, ds_b = MinHash(num_perm=256, seed=1), MinHash(num_perm=256, seed=1)
        ds_a.update_batch([int(h).to_bytes(8, "little") for h in a])
        ds_b.update_batch([int(h).to_bytes(8, "little") for h in b])
        theirs = ds_a.jaccard(ds_b)
        assert 0.02 < true < 0.95  # a real, partial overlap
        assert abs(ours - true) <= 0.1, (true, ours)
        assert abs(theirs - true) <= 0.1, (true, theirs)
    # unrelated texts estimate near zero
    unrelated = estimate_jaccard(
        mh.signature(shingle_hashes(texts[0])), mh.signature(shingle_hashes(texts[1]))
    )
    assert unrelated < 0.05


def test_estimator_is_unbiased_on_average():
    # 200 random set pairs with true Jaccard 1/3: the mean estimate must be close to it
    rng = np.random.default_rng(7)
    mh = MinHasher(num_perm=64, seed=3)
    estimates = []
    for _ in range(200):
        vals = rng.integers(0, 2**64 - 1, size=300, dtype=np.uint64, endpoint=True)
        a, b = vals[:200], vals[100:]
        estimates.append(estimate_jaccard(mh.signature(a), mh.signature(b)))
    assert abs(np.mean(estimates) - 1 / 3) < 0.02


def test_band_keys():
    mh = MinHasher(num_perm=128)
    text = _real_texts(1)[0]
    sig_a = mh.signature(shingle_hashes(text))
    sig_b = sig_a.copy()
    sig_b[5] += 1  # differs in band 0 only (rows=16)
    ka, kb = band_keys(sig_a, 8, 16), band_keys(sig_b, 8, 16)
    assert len(ka) == 8 and all(isinstance(k, int) and -(2**63) <= k < 2**63 for k in ka)
    assert ka[0] != kb[0] and ka[1:] == kb[1:]
    assert len(set(ka)) == 8
    # the same values in another band give another key
    same = np.zeros(8, dtype=np.uint64)
    k = band_keys(same, 2, 4)
    assert k[0] != k[1]
    # batch and single agree; only the first bands*rows values matter
    batch = band_keys_batch(np.stack([sig_a, sig_b]), 9, 13)
    assert batch.dtype == np.int64
    assert batch[0].tolist() == band_keys(sig_a, 9, 13)
    assert batch[1].tolist() == band_keys(sig_b, 9, 13)
    assert band_keys(np.arange(8, dtype=np.uint64), 2, 2) == band_keys(
        np.array([0, 1, 2, 3, 9, 9], dtype=np.uint64), 2, 2
    )
    assert band_keys(np.arange(4, dtype=np.uint64), 2, 2) == BAND_KEYS_PINNED


BAND_KEYS_PINNED = [4419026930777335657, 8416459299741813410]
