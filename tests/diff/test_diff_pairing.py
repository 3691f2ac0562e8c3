"""Members renamed by content hashes or by a renamed distribution pair as one file:
``flashinfer-cubin`` files its cubins under ``cubins/<40 hex>/…`` and the hash changes
with every release (before: 15,278 "added", 12,401 "removed"; the pair is 10,725 files)."""

from __future__ import annotations

from pathlib import Path

from cubinfx import cubin, cubin_wheel
from wheel_size.diff.compare import diff_wheels
from wheel_size.diff.pairing import content_hash_key, pair_members

OLD_HASH = "10f64528a1172dae8e29601a3b99ab9dc78d37be"
NEW_HASH = "c21ddd11585c1eea5764927465d0be15dd957e45"


def test_content_hash_components_are_one_key() -> None:
    assert content_hash_key(f"p/cubins/{OLD_HASH}/gemm/k.cubin") == "p/cubins/#/gemm/k.cubin"
    assert content_hash_key(f"p/x-{NEW_HASH}.bin") == "p/x-#.bin"
    # short git hashes and hex-looking words inside a name are not content hashes
    assert content_hash_key("p/gemm-91e0ba0-2710384/k.cubin") is None
    assert content_hash_key("p/deadbeefdeadbeefdeadbeefzz/k") is None


def test_hashed_directories_pair_and_ambiguous_names_do_not() -> None:
    olds = [f"p/cubins/{OLD_HASH}/a.cubin", f"p/cubins/{OLD_HASH}/b.cubin", "p/x/1/c.cubin"]
    news = [f"p/cubins/{NEW_HASH}/a.cubin", f"p/cubins/{NEW_HASH}/b.cubin"]
    news += [f"p/cubins/{NEW_HASH[:-1]}0/a.cubin"]  # two new candidates for one a.cubin
    pairs = set(pair_members(olds, news))
    assert (f"p/cubins/{OLD_HASH}/b.cubin", f"p/cubins/{NEW_HASH}/b.cubin") in pairs
    assert (f"p/cubins/{OLD_HASH}/a.cubin", None) in pairs
    assert ("p/x/1/c.cubin", None) in pairs and len(pairs) == 5


def test_a_renamed_distribution_pairs_below_its_top_level_package() -> None:
    olds = ["foo_cu12/lib/x.so", "foo_cu12/__init__.py", "foo_cu12-1.0.dist-info/METADATA"]
    news = ["foo_cu13/lib/x.so", "foo_cu13/__init__.py", "foo_cu13-1.1.dist-info/METADATA"]
    assert set(pair_members(olds, news)) == set(zip(olds, news, strict=True))


def test_a_hundred_thousand_hashed_members_pair_in_one_pass() -> None:
    olds = [f"p/{i:040x}/k{i}.cubin" for i in range(100_000)]
    news = [f"p/{i + 1 << 100:040x}/k{i}.cubin" for i in range(100_000)]
    pairs = pair_members(olds, news)
    assert len(pairs) == 100_000 and all(a and b for a, b in pairs)


def test_the_diff_pairs_cubins_across_hash_directories(tmp_path: Path) -> None:
    old = cubin_wheel(tmp_path / "o", "1.0", {f"cubins/{OLD_HASH}/k.cubin": cubin("k_sm_90.cubin")})
    new = cubin_wheel(
        tmp_path / "n", "1.1", {f"cubins/{NEW_HASH}/k.cubin": cubin("k_sm_100a.cubin")}
    )
    diff = diff_wheels(old, new)
    (item,) = [f for f in diff.files if f.path.endswith(".cubin")]
    assert item.status == "changed" and item.old_path == f"cubins/{OLD_HASH}/k.cubin"
    assert {g.arch for g in item.gpu} == {"sm_90", "sm_100a"}
