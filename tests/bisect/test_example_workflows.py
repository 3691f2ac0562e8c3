"""The example workflows of docs/bisect.md work with the bisection as written: the fake's
build workflow is configured from the example file itself (its inputs, its ``run-name:``,
its tag filter, its artifact's name) and ``wheel-size bisect`` run with the nightly
example's inputs finds the culprit. actionlint and the schemas check the files too
(tests/workflows)."""

from __future__ import annotations

import fnmatch
import json
import re
from pathlib import Path
from typing import Any

import yaml
from bisect_world import MB, make

from cli_runner import run_main
from fakegithub import FakeGitHub
from fakegithub.dispatch import tags

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
FAST = {"WHEEL_SIZE_GITHUB_RETRY": "total=1,backoff=0,between_writes=0"}


def _load(name: str) -> dict[Any, Any]:
    loaded: dict[Any, Any] = yaml.safe_load((EXAMPLES / name).read_text())
    return loaded


def _nightly_inputs() -> dict[str, str]:
    jobs = _load("bisect-nightly.yml")["jobs"]
    steps = [s for job in jobs.values() for s in job.get("steps", [])]
    (ours,) = [s for s in steps if "wheel-size-action" in str(s.get("uses"))]
    return {k: str(v) for k, v in ours["with"].items()}


def _artifact(workflow: dict[Any, Any]) -> str:
    steps = [s for job in workflow["jobs"].values() for s in job["steps"]]
    (upload,) = [s for s in steps if "upload-artifact" in str(s.get("uses"))]
    return str(upload["with"]["name"])


def test_the_dispatch_example(tmp_path: Path, fake_github: FakeGitHub) -> None:
    build = _load("bisect-build-dispatch.yml")
    inputs = _nightly_inputs()
    declared = tuple(build[True]["workflow_dispatch"]["inputs"])
    assert inputs["bisect-dispatch-input"] in declared
    run_name = re.sub(r"\$\{\{\s*inputs\.(\w+)\s*\}\}", r"{\1}", build["run-name"])
    assert "{" + inputs["bisect-dispatch-input"] + "}" in run_name  # the title carries it
    w = make(tmp_path, fake_github, 25, {14: 3 * MB}, inputs=declared, run_name=run_name,
             return_run_details=False, artifact=_artifact(build), list_after=2)  # fmt: skip
    args = w.args("--dispatch-input", inputs["bisect-dispatch-input"],
                  "--dispatch-ref", inputs["bisect-dispatch-ref"],
                  "--builds-per-round", inputs["bisect-builds-per-round"])  # fmt: skip
    result = run_main(args, env={**fake_github.env(), **FAST})
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert [c["sha"] for c in doc["culprits"]] == [w.order[14]]
    titles = {r.display_title for r in w.farm.workflow.runs}
    assert all(f"Build {b['sha']}" in titles for b in doc["builds"])


def test_the_tag_example(tmp_path: Path, fake_github: FakeGitHub) -> None:
    build = _load("bisect-build-tag.yml")
    (glob,) = build[True]["push"]["tags"]
    text = (EXAMPLES / "bisect-nightly.yml").read_text()
    pattern = re.search(r"bisect-tag-pattern: (\S+)", text)
    assert pattern and fnmatch.fnmatchcase(pattern[1].replace("{sha}", "0" * 40), glob)
    assert "secrets." in text  # a token that starts runs, not GITHUB_TOKEN
    fake_github.token_app = "bisect-app[bot]"
    w = make(tmp_path, fake_github, 25, {3: -2 * MB}, tag_pattern=fnmatch.translate(glob),
             artifact=_artifact(build))  # fmt: skip
    result = run_main(w.args("--tag-pattern", pattern[1]), env={**fake_github.env(), **FAST})
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert [c["sha"] for c in doc["culprits"]] == [w.order[3]]
    assert tags(fake_github, fake_github.repo("pytorch/pytorch")) == {}
