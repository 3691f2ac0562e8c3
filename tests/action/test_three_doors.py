"""One set of defaults for the three doors (issue 29 item 4): the command line, the container
entrypoint run with only the required ``INPUT_*`` (as ``docker run -e INPUT_…`` does), and
the action, whose runner passes every input action.yml gives a default for."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from conftest import REPO_ROOT
from wheel_size.action.check import check_request
from wheel_size.action.track_inputs import track_inputs
from wheel_size.cli.check import request_from_args
from wheel_size.cli.main import build_parser
from wheel_size.cli.track import nightly_options_from_args


def _action_defaults(action_yml: Path) -> dict[str, str]:
    """``INPUT_*`` as the runner sets them when a workflow gives no input (expressions such
    as ``${{ github.repository }}`` stand for the event and are left out)."""
    spec = yaml.safe_load(action_yml.read_text())
    return {
        f"INPUT_{name.upper()}": str(v["default"])
        for name, v in spec["inputs"].items()
        if "default" in v and "${{" not in str(v["default"])
    }


def _differences(doors: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    first = next(iter(doors.values()))
    out: dict[str, dict[str, Any]] = {}
    for field in dataclasses.fields(first):
        values = {door: getattr(o, field.name) for door, o in doors.items()}
        if any(v != getattr(first, field.name) for v in values.values()):
            out[field.name] = values
    return out


def test_track_defaults_are_the_same_through_every_door(tmp_path: Path) -> None:
    required = {"INPUT_REPOSITORY": "pytorch/pytorch", "INPUT_WORKFLOW": "nightly.yml"}
    action = {**_action_defaults(REPO_ROOT / "action.yml"), **required}
    args = build_parser().parse_args(
        ["track", "--repo", "pytorch/pytorch", "--workflow", "nightly.yml"]
    )
    cli = nightly_options_from_args(args)
    entry = track_inputs(required, tmp_path).nightly
    runner = track_inputs(action, tmp_path).nightly
    # Before: the entrypoint without INPUT_BRANCH listed every branch (ciflow/binaries/* PR
    # runs stored as nights) while the action and the CLI read `nightly` only.
    assert entry.track.source.branch == "nightly"
    doors = {"cli": cli.track, "entrypoint": entry.track, "action": runner.track}
    assert _differences(doors) == {}
    for part in ("issues", "evidence", "limits"):
        assert getattr(cli, part) == getattr(entry, part) == getattr(runner, part), part


def test_an_empty_branch_input_still_means_any_branch(tmp_path: Path) -> None:
    env = {"INPUT_REPOSITORY": "o/r", "INPUT_WORKFLOW": "n.yml", "INPUT_BRANCH": ""}
    assert track_inputs(env, tmp_path).nightly.track.source.branch is None


def test_check_defaults_are_the_same_through_every_door(tmp_path: Path) -> None:
    wheels = tmp_path / "dist"
    wheels.mkdir()
    required = {"INPUT_CHECK-WHEELS": "dist", "INPUT_HISTORY-DIR": "history"}
    action = {**_action_defaults(REPO_ROOT / "check" / "action.yml"), **required}
    args = build_parser().parse_args(["check", str(wheels), "--history", str(tmp_path / "history")])
    cli = request_from_args(args)
    entry = check_request(required, tmp_path, None)
    runner = check_request(action, tmp_path, None)
    for name in ("budget", "naming", "diff_limit"):
        values = [getattr(r.options, name) for r in (cli, entry, runner)]
        assert values.count(values[0]) == 3, (name, values)
    for name in ("compare_with", "max_download_bytes", "footer", "comment"):
        values = [getattr(r, name) for r in (cli, entry, runner)]
        assert values.count(values[0]) == 3, (name, values)


def test_help_and_readme_say_the_merge_base_night_not_the_newest() -> None:
    # Before: "a pull request's wheels against the newest nightly" although the default is
    # the night of the pull request's merge base.
    readme = (REPO_ROOT / "README.md").read_text()
    overview = build_parser().format_help()
    for text in (readme, overview):
        assert "wheels against the newest nightly" not in text
    assert "against the nightly of its merge base" in overview
