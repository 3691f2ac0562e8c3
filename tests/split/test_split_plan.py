"""The split plans first, then applies: the plan is complete and frozen before the first output
byte, the apply phase changes nothing in it, and every library is parsed once."""

from __future__ import annotations

import dataclasses
import io
from collections import Counter
from pathlib import Path

import pytest

from fatwheel import build_fat_wheel
from wheel_size.rocm import elf_file
from wheel_size.rocm.source import SourceLike
from wheel_size.split.apply import plan_only, split_wheel
from wheel_size.split.plan import SplitOptions

OPTIONS = SplitOptions(
    device_package_prefix="amd-torch-device",
    overlay_root="torch/",
    databases=("rocblas", "hipblaslt", "hipsparselt", "aotriton", "miopen"),
    jobs=1,  # in this process, so the parses can be counted
)


@pytest.fixture(scope="module")
def fat_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_fat_wheel(tmp_path_factory.mktemp("in"))


def test_each_library_is_parsed_once(
    fat_wheel: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counts the ELF header parses per file name (a spy around the real parser): one per
    input library in the scan, and one of each rewritten output by its verification."""
    parses: Counter[str] = Counter()
    real_init = elf_file.ElfImage.__init__

    def counting(self: elf_file.ElfImage, data: SourceLike, name: str) -> None:
        parses[name] += 1
        real_init(self, data, name)

    monkeypatch.setattr(elf_file.ElfImage, "__init__", counting)
    result = split_wheel(fat_wheel, tmp_path / "out", OPTIONS, log=io.StringIO())
    inputs = {n: c for n, c in parses.items() if not n.endswith("(rewritten)")}
    rewritten = {n: c for n, c in parses.items() if n.endswith("(rewritten)")}
    assert set(inputs) == {f"{fat_wheel}:{m.name}" for m in result.plan.candidates}
    assert set(inputs.values()) == {1}
    assert len(rewritten) == len(result.plan.fat_libraries) and set(rewritten.values()) == {1}


def test_plan_is_frozen_and_apply_leaves_it_alone(fat_wheel: Path, tmp_path: Path) -> None:
    dry = plan_only(fat_wheel, tmp_path / "out", OPTIONS, log=io.StringIO())
    assert not (tmp_path / "out").exists()
    with pytest.raises(dataclasses.FrozenInstanceError):
        dry.warnings = ()  # type: ignore[misc]
    assert isinstance(dry.warnings, tuple) and isinstance(dry.libraries, tuple)
    result = split_wheel(fat_wheel, tmp_path / "out", OPTIONS, log=io.StringIO())
    plan = result.plan
    # A second plan of the same wheel is the same plan, and applying it changed nothing.
    assert plan.warnings == dry.warnings and list(result.warnings) == list(plan.warnings)
    assert [d.filename for d in plan.devices] == [d.filename for d in dry.devices]
    assert [(lib.rel, lib.size_after, lib.code_objects) for lib in plan.libraries] == [
        (lib.rel, lib.size_after, lib.code_objects) for lib in dry.libraries
    ]
    written = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert written == sorted([plan.host_name, *(d.filename for d in plan.devices)])
