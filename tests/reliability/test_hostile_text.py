"""Injection (issue 7, item 4; issue 10, item 6): text from GitHub, wheels and action inputs
stays inert.

Commit titles, bodies, file names and artifact names come from people and builds we do not
control. Copied into an issue, a pull-request comment or a step summary they must not ping
anyone, back-reference pull requests, close issues, forge our hidden markers, inject HTML,
show a tracking image, offer a link (``javascript:`` or any other) or carry bidi overrides
and terminal escapes; in the dashboard they must be escaped. Action inputs are never handed
to a shell. Every rendered text is checked with a real GFM renderer (tests/render/gfm.py).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from cli_runner import run_main
from conftest import REPO_ROOT
from fakegithub import FakeGitHub
from regression_world import Change, build_world
from render.gfm import bad_characters, render
from wheel_factory import make_wheel
from wheel_size.cli.main import main
from wheel_size.regressions.issues.sync import event_from_marker
from wheel_size.units import MB

ZWJ = "\u200d"
FORGED = (
    "<!-- wheel-size-action:event=jump/cpu/2025-10-11 before=2025-10-10:1 after=2025-10-11:2 -->"
)
HOSTILE_TITLE = (
    "Add Half kernels ![pixel](http://tracker.example/p) [click](javascript:alert(1)) "
    f"\u202egnp.exe\x1b[31m @pytorch/release-team fixes #4242 {FORGED} <script>alert(1)</script>"
    " (#101) <http://evil.example> www.evil.example [ref][1] `code](x)`"
)
LINK_DEFINITION = "[1]: javascript:alert(1)"
HOSTILE_BODY = (
    "cc @octocat\n\nFixes https://github.com/pytorch/pytorch/issues/999 and GH-77\n\n"
    + LINK_DEFINITION
)
# Our own raw HTML in the templates: markers, the statuses' <details>, small print.
OUR_HTML = (
    "<!-- wheel-size-action:", "<!-- wheel-size:", "<details>", "</details>", "<sub>", "</sub>"
)  # fmt: skip
PAYLOAD_WORDS = ("tracker", "javascript", "gnp", "click", "pixel")


def assert_inert_markdown(markdown: str, *, links: tuple[str, ...] = ()) -> None:
    """Rendered, ``markdown`` links only to ``links``, shows no image, holds only our HTML,
    pings nobody, references nothing and carries no control or bidi character."""
    assert bad_characters(markdown) == []
    shown = render(markdown)
    assert "image" not in shown.kinds
    assert shown.problems(links=links, html=OUR_HTML) == []


HOSTILE_FILE = "aten/src/ATen/native/cuda/<img src=x onerror=alert(1)>.cuh"
HOSTILE_ARTIFACT = "manywheel-py3_12-cuda12_8<img src=x onerror=alert(2)>"


def make_world(tmp_path: Path, fake: FakeGitHub) -> None:
    changes = [Change(f"base {i}", {"README.md": f"{i}\n"}) for i in range(3)]
    changes.append(Change(f"{HOSTILE_TITLE}\n\n{HOSTILE_BODY}", {HOSTILE_FILE: "k\n"}))
    nights = [("2025-10-09", 1, None), ("2025-10-10", 2, None), ("2025-10-11", 3, None)]
    world = build_world(tmp_path / "git", changes, nights)
    repo = fake.add_repo("pytorch/pytorch", git_dir=world.path)
    wf = repo.add_workflow(21257348, "linux-binary-manywheel")
    sizes = {"2025-10-09": 855.2, "2025-10-10": 855.3, "2025-10-11": 859.6}
    for day, mb in sizes.items():
        run = wf.add_run(
            created_at=f"{day}T07:30:00Z",
            head_sha=world.nightly[day],
            message=f"{day} nightly release ({world.bases[day]})",
        )
        run.add_artifact("manywheel-py3_12-cuda12_8", size_in_bytes=round(mb * MB))
        run.add_artifact(HOSTILE_ARTIFACT, size_in_bytes=round(mb * MB))


def test_api_text_is_inert_in_issues_and_dashboard(
    fake_github: FakeGitHub,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    make_world(tmp_path, fake_github)
    for name, value in fake_github.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("WHEEL_SIZE_GITHUB_RETRY", "total=1,backoff=0,between_writes=0")
    history = tmp_path / "h"
    args = ["track", "--repo", "pytorch/pytorch", "--workflow", "21257348", "--branch", "nightly"]
    args += ["--history", str(history), "--variant", "cuda12_8", "--create-issues", "--no-evidence"]
    args += ["--dashboard"]
    for night in ("2025-10-09", "2025-10-10", "2025-10-11"):
        assert main([*args, "--date", night]) == 0, capsys.readouterr().err
    (issue,) = fake_github.repo("pytorch/pytorch").issues
    body = issue.body or ""
    assert "Add Half kernels" in body  # the commit is listed …
    # … but nobody is pinged, no PR or issue gets a back-reference or is closed,
    assert re.search(r"(?<![\w])@(?=[A-Za-z0-9])", body) is None, "a live @mention"
    assert re.search(r"#\d", body) is None, "a live #reference"
    assert "https://github.com/pytorch/pytorch/issues/999" not in body
    # … no HTML gets through, and the only markers are our own leading lines (the event,
    # then the listed candidates: our hex SHAs and PR numbers only, then the cause for the
    # notes: its title and URL percent-encoded, one token without spaces or '>').
    assert "<script" not in body and "<img" not in body
    markers = [ln for ln in body.splitlines() if "<!--" in ln]
    # (and last the run that opened it: a random hex token, issue 32)
    assert len(markers) == 4 and body.startswith("\n".join(markers))
    assert re.fullmatch(r"<!-- wheel-size-action:run=[0-9a-f]{16} -->", markers[3])
    assert re.fullmatch(r"<!-- wheel-size-action:candidates=[0-9a-f:,]* -->", markers[1])
    assert re.fullmatch(
        r"<!-- wheel-size-action:cause=[0-9a-f]{40} status=[A-Z%0-9]+ "
        r"url=[A-Za-z0-9%._~-]* title=[A-Za-z0-9%._~-]* -->",
        markers[2],
    )
    event = event_from_marker(body)
    assert event is not None and event.variant == "cuda12_8"
    assert issue.title.startswith("Wheel size: cuda12_8")
    # Rendered as GitHub would: no image, no link but ours, no HTML but ours, no bidi or ESC;
    # the payloads are still there to read.
    assert_inert_markdown(body, links=(fake_github.web_url,))
    visible = render(body).visible
    assert all(word in visible for word in PAYLOAD_WORDS), visible
    # The dashboard escapes the hostile artifact name.
    html = next(history.rglob("index.html")).read_text()
    assert "<img src=x" not in html
    assert "onerror=alert(2)" not in html or "&lt;img" in html


HOSTILE_NAMES = [
    "[click](javascript:alert(1)).txt",
    "![pixel](tracker.example/pixel.png).txt",
    "<img src=x onerror=alert(1)>.txt",
    "@octocat fixes #12 GH-3 www.evil.example x@evil.example.txt",
    "`code](x)` [ref][1] | a | b.txt",
    "\u202egnp.exe.txt",
]


@pytest.fixture(scope="module")
def hostile_wheels(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two wheels whose member names are Markdown and bidi payloads (legal zip names)."""
    tmp = tmp_path_factory.mktemp("hostile")
    (tmp / "old").mkdir()
    (tmp / "new").mkdir()
    old_files = {f"pkg/data/{n}": b"a\n" for n in HOSTILE_NAMES}
    new_files = {f"pkg/data/{n}": b"a\n" * 4000 for n in HOSTILE_NAMES}
    old = make_wheel(tmp / "old", "pkg", "1.0", files=old_files)
    new = make_wheel(tmp / "new", "pkg", "1.1", files=new_files)
    return old, new


def test_wheel_member_names_are_inert_in_diff(hostile_wheels: tuple[Path, Path]) -> None:
    old, new = hostile_wheels
    result = run_main(["diff", str(old), str(new)])
    assert result.returncode == 0, result.stderr
    assert_inert_markdown(result.stdout)
    visible = render(result.stdout).visible
    assert all(word in visible for word in ("click", "pixel", "onerror", "octocat", "gnp")), visible


def test_wheel_file_names_are_inert_in_audit(
    hostile_wheels: tuple[Path, Path], tmp_path: Path
) -> None:
    """Artifact folders hold whatever file names a build uploaded."""
    old, _ = hostile_wheels
    folder = tmp_path / "artifacts"
    folder.mkdir()
    names = [
        "pkg-1.0+cu128.[x](javascript:alert(1))-py3-none-any.whl",
        "pkg-1.0-py3-none-any-![pixel](tracker.example)\u202e.whl",
        "pkg-1.0+rocm6.3-py3-none-any.whl",
        "pkg-1.0-py3-none-any-<img src=x onerror=alert(1)>@octocat #5.whl",
    ]
    for name in names:
        (folder / name).write_bytes(old.read_bytes())
    result = run_main(["audit", str(folder)])
    assert result.returncode == 0, result.stderr
    assert_inert_markdown(result.stdout)
    visible = render(result.stdout).visible
    assert all(word in visible for word in ("javascript", "pixel", "onerror", "octocat")), visible


def hostile_split_report() -> Any:
    """The seed's saved split report (every section of version 2) with every name in it made
    hostile (split runs on pull requests: whoever opens one controls the wheel's names)."""
    import json

    bad = "![p](http://tracker.example/p) [click](javascript:alert(1)) <img src=x> @octocat #7"
    ours = {"level", "kind", "compression", "scheme", "unit"}  # our own vocabulary, kept

    def poison(value: object, key: str = "") -> object:
        if isinstance(value, dict):
            return {k: poison(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [poison(v, key) for v in value]
        if isinstance(value, str) and key not in ours:
            return f"{bad}\u202e\x1b[31m{value}"
        return value

    seed = json.loads((REPO_ROOT / "tests" / "data" / "split" / "seed-report.json").read_text())
    report = poison(seed)
    assert isinstance(report, dict)
    report["warnings"] = [f"{bad}\n# not a heading\n[1]: javascript:alert(1)"]
    return report


def test_split_comment_on_a_pull_request_is_inert() -> None:
    from wheel_size.split.comment import render_comment

    body = render_comment(hostile_split_report())
    assert body.startswith("<!-- wheel-size-action:split -->\n")
    assert_inert_markdown(body)
    visible = render(body).visible
    assert all(word in visible for word in ("tracker", "click", "javascript", "octocat")), visible


def test_no_shell_anywhere_in_the_package() -> None:
    """Inputs reach subprocesses only as argument lists: no shell=True, os.system, popen."""
    offenders = []
    for path in (REPO_ROOT / "src").rglob("*.py"):
        text = path.read_text()
        for pattern in (
            r"shell\s*=\s*True",
            r"\bos\.system\(",
            r"\bos\.popen\(",
            r"commands\.getoutput",
        ):
            if re.search(pattern, text):
                offenders.append(f"{path.relative_to(REPO_ROOT)}: {pattern}")
    assert offenders == []


@pytest.mark.slow
def test_action_inputs_do_not_reach_a_shell(fake_github: FakeGitHub, tmp_path: Path) -> None:
    """Shell syntax in every text input of the action is taken literally (and refused)."""
    import yaml

    from action_runner import run_action, runner_env

    action = yaml.safe_load((REPO_ROOT / "action.yml").read_text())
    canary = tmp_path / "pwned"
    payload = f"$(touch {canary}); touch {canary} `touch {canary}` | touch {canary}"
    env = runner_env(fake_github, tmp_path, {}, extra={"PATH": "/usr/local/bin:/usr/bin:/bin"})
    tried = 0
    for key, spec in action["inputs"].items():
        default = str(spec.get("default", ""))
        if default in ("true", "false") or key == "github-token":
            continue
        run_action({**env, f"INPUT_{key.upper()}": payload})
        tried += 1
        assert not canary.exists(), f"input {key} reached a shell"
    assert tried >= 10
