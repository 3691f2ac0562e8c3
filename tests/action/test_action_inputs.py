"""The input readers every Action mode shares."""

from __future__ import annotations

from pathlib import Path

import pytest

from wheel_size.action.inputs import (
    FLAG,
    ActionSpec,
    Input,
    action_input,
    repository,
    words,
    workspace_paths,
)
from wheel_size.errors import InputError


def test_inputs_are_read_as_the_runner_passes_them() -> None:
    env = {"INPUT_REPORT-PATH": "  r.md \n", "INPUT_DRY_RUN": "Yes", "GITHUB_REPOSITORY": "o/r"}
    assert action_input(env, "report-path") == "r.md"
    assert action_input(env, "missing") == ""
    flags = ActionSpec(
        "t", "t", "test action",
        (Input("dry run", FLAG, "", ""), Input("missing", FLAG, "", ""),
         Input("on", FLAG, "true", ""), Input("split-comment", FLAG, "true", "")),
    )  # fmt: skip
    read = flags.read({**env, "INPUT_SPLIT-COMMENT": "off"})
    assert read.flag("dry run") is True
    assert read.flag("missing") is False
    assert read.flag("on") is True
    assert read.flag("split-comment") is False
    assert repository(env) == "o/r"
    assert repository({**env, "INPUT_REPOSITORY": "a/b"}) == "a/b"
    with pytest.raises(InputError, match="input missing must be true or false, not 'maybe'"):
        flags.read({"INPUT_MISSING": "maybe"}).flag("missing")
    assert words("a.whl, b.whl\nc.whl") == ["a.whl", "b.whl", "c.whl"]


def test_workspace_paths_expand_globs_and_name_a_missing_file(tmp_path: Path) -> None:
    for name in ("b.whl", "a.whl", "notes.txt"):
        (tmp_path / name).write_text("")
    env = {"INPUT_AUDIT-INPUT": "*.whl notes.txt"}
    assert workspace_paths(env, "audit-input", tmp_path) == [
        tmp_path / "a.whl",
        tmp_path / "b.whl",
        tmp_path / "notes.txt",
    ]
    with pytest.raises(InputError, match=r"^input audit-input: gone\.whl: no such file"):
        workspace_paths({"INPUT_AUDIT-INPUT": "gone.whl"}, "audit-input", tmp_path)
