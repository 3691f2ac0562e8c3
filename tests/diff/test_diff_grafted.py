"""A grafted library that ``auditwheel repair`` renamed by its hash is one changed library:
torchvision 0.22.0 -> 0.22.1 showed ``torchvision.libs/libwebp.ad67f466.so.7`` "removed" and
``libwebp.16dd7af3.so.7`` "added" (five such pairs, each with a full section table)."""

from __future__ import annotations

from pathlib import Path

from conftest import REPO_ROOT
from wheel_factory import make_wheel
from wheel_size.diff.compare import diff_wheels
from wheel_size.diff.grafted import pair_renamed
from wheel_size.diff.view import diff_view
from wheel_size.render import render

OLD_SO = REPO_ROOT / "tests" / "data" / "abi3" / "clean.abi3.so"
NEW_SO = REPO_ROOT / "tests" / "data" / "abi3" / "leaky.abi3.so"


def test_a_library_renamed_by_its_hash_is_one_changed_library(tmp_path: Path) -> None:
    old = make_wheel(
        tmp_path / "old", "pkg", "1.0", files={"pkg.libs/libwebp.ad67f466.so.7": OLD_SO}
    )
    new = make_wheel(
        tmp_path / "new", "pkg", "1.1", files={"pkg.libs/libwebp.16dd7af3.so.7": NEW_SO}
    )
    diff = diff_wheels(old, new)
    [lib] = [f for f in diff.files if f.path.startswith("pkg.libs/")]
    assert (lib.status, lib.old_path, lib.path) == (
        "changed",
        "pkg.libs/libwebp.ad67f466.so.7",
        "pkg.libs/libwebp.16dd7af3.so.7",
    )
    assert lib.sections  # compared section by section, both sides read
    assert all(s.old_size for s in lib.sections if s.name == ".text")
    counts = diff.counts()
    assert (counts["added"], counts["removed"]) == (0, 0)
    text = render("diff.md.j2", comparisons=[diff_view(diff)], problems=[])
    assert "changed (was libwebp.ad67f466.so.7)" in text
    assert "| removed |" not in text and "| added |" not in text
    assert "(was METADATA)" not in text  # a dist-info renamed by the version is no rename


def test_auditwheel_dash_and_delvewheel_names_pair() -> None:
    assert pair_renamed(["p.libs/libz-f537e57c.so.1"], ["p.libs/libz-8053c0ed.so.1"]) == {
        "p.libs/libz-f537e57c.so.1": "p.libs/libz-8053c0ed.so.1"
    }
    old_dll = "p.libs/msvcp140-" + "a" * 32 + ".dll"
    new_dll = "p.libs/msvcp140-" + "b" * 32 + ".dll"
    assert pair_renamed([old_dll], [new_dll]) == {old_dll: new_dll}


def test_no_guess_when_the_name_is_not_a_hash_or_not_unique() -> None:
    # versions, not hashes
    assert pair_renamed(["p/libfoo-1.2.so"], ["p/libfoo-1.3.so"]) == {}
    # another directory
    assert pair_renamed(["a.libs/libz-f537e57c.so.1"], ["b.libs/libz-8053c0ed.so.1"]) == {}
    # two new candidates for one old library: which one it became would be a guess
    assert (
        pair_renamed(
            ["p.libs/libz-11111111.so.1"],
            ["p.libs/libz-22222222.so.1", "p.libs/libz-33333333.so.1"],
        )
        == {}
    )
