"""Issue 34's inputs on the actions: ``quota-project`` (with ``quota-limit-gb`` and
``quota-index``) on the check and audit actions give the same quota as ``--quota-project``;
``deps`` on the nightly action turns on the whole download; a bad one names the input."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from test_three_doors import _action_defaults

from action_runner import read_outputs, run_action, runner_env
from cli_runner import run_main
from conftest import REPO_ROOT
from fakegithub import FakeGitHub
from pypi_fixture import FixtureIndex
from wheel_factory import make_wheel
from wheel_size.action.check import check_request
from wheel_size.action.track_inputs import track_inputs
from wheel_size.errors import InputError
from wheel_size.quota.model import GIB


def _index(root: Path) -> Path:
    root.mkdir()
    rnd = random.Random(3)
    for version in ("0.1.0", "0.2.0"):
        (root / f"demo-{version}-py3-none-any.whl").write_bytes(rnd.randbytes(40_000))
    return root


def test_audit_action_quota_is_the_clis(fake_github: FakeGitHub, tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    make_wheel(workspace / "dist", "demo", "0.3.0", "py3-none-any", {"demo/a.py": b"x = 1\n" * 99})
    index = _index(tmp_path / "index")
    with FixtureIndex(index).serving() as url:
        inputs = {"audit-input": "dist", "quota-project": "demo", "quota-index": url,
                  "quota-limit-gb": "0.5"}  # fmt: skip
        env = runner_env(fake_github, tmp_path, inputs, repository="o/demo", action="audit")
        result = run_action(env, "audit")
        cli = run_main(
            [
                "audit",
                "dist",
                "--format",
                "json",
                "--quota-project",
                "demo",
                "--quota-index",
                url,
                "--quota-limit-gb",
                "0.5",
            ],
            cwd=workspace,
        )
    assert result.returncode == 0, result.stdout + result.stderr
    found = read_outputs(tmp_path / "output")
    report = json.loads((workspace / found["audit-report-json-path"]).read_text())
    quota = report["quota"]
    assert quota["stored_bytes"] == sum(p.stat().st_size for p in index.iterdir())
    assert quota["limit_bytes"] == round(0.5 * GIB)
    assert quota == json.loads(cli.stdout)["quota"]
    assert "### Project quota" in (tmp_path / "summary").read_text()


def test_check_action_quota_inputs(tmp_path: Path) -> None:
    (tmp_path / "dist").mkdir()
    defaults = _action_defaults(REPO_ROOT / "check" / "action.yml")
    env = {**defaults, "INPUT_CHECK-WHEELS": "dist", "INPUT_HISTORY-DIR": "history"}
    assert check_request(env, tmp_path, None).options.quota is None  # off by default
    asked = {**env, "INPUT_QUOTA-PROJECT": "torch", "INPUT_QUOTA-LIMIT-GB": "25"}
    quota = check_request(asked, tmp_path, None).options.quota
    assert quota is not None and quota.project == "torch" and quota.limit_gb == 25.0
    assert quota.index_url == "https://pypi.org"
    with pytest.raises(InputError, match="input quota-limit-gb needs quota-project"):
        check_request({**env, "INPUT_QUOTA-LIMIT-GB": "25"}, tmp_path, None)
    with pytest.raises(InputError, match="input quota-limit-gb"):
        check_request({**asked, "INPUT_QUOTA-LIMIT-GB": "lots"}, tmp_path, None)
    with pytest.raises(InputError, match="input quota-limit-gb"):
        check_request({**asked, "INPUT_QUOTA-LIMIT-GB": "0"}, tmp_path, None)


def _track_env(tmp_path: Path, **inputs: str) -> dict[str, str]:
    env = {
        "GITHUB_WORKSPACE": str(tmp_path),
        "GITHUB_REPOSITORY": "pytorch/pytorch",
        "INPUT_WORKFLOW": "nightly.yml",
        "INPUT_BRANCH": "",
        "INPUT_HISTORY-DIR": "history",
    }
    env.update({f"INPUT_{k.upper()}": v for k, v in inputs.items()})
    return env


def test_nightly_deps_input(tmp_path: Path) -> None:
    assert track_inputs(_track_env(tmp_path), tmp_path).nightly.track.deps is None
    on = track_inputs(_track_env(tmp_path, deps="true"), tmp_path).nightly.track.deps
    assert on is not None and on.index_url == "https://pypi.org/simple"
    mirror = _track_env(tmp_path, deps="true", **{"deps-index-url": "http://127.0.0.1:9/simple"})
    deps = track_inputs(mirror, tmp_path).nightly.track.deps
    assert deps is not None and deps.index_url == "http://127.0.0.1:9/simple"
    with pytest.raises(InputError, match="input deps-index-url needs deps"):
        track_inputs(_track_env(tmp_path, **{"deps-index-url": "http://x/simple"}), tmp_path)
    with pytest.raises(InputError, match="input deps must be true or false"):
        track_inputs(_track_env(tmp_path, deps="maybe"), tmp_path)
