"""Run the jobs of our reusable workflow on this machine, the way a runner would.

Not a GitHub Actions emulator: just enough to execute *our* workflow file as written — its
job order and ``if:``s, the matrix from ``plan``, its ``${{ }}`` expressions, the ``run:``
scripts in bash, step and job outputs through ``GITHUB_OUTPUT`` — so the scripts are tested
against the real command line (a renamed flag fails here, not in a user's nightly). Steps
that use an action are played by small stand-ins: ``setup-python`` does nothing, the
artifact actions copy files through a directory, and the ``pip install`` step is replaced by
a ``wheel-size`` shim that runs this checkout.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conftest import SRC

# ----------------------------------------------------------------------------- expressions

_TOKEN = re.compile(
    r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<num>-?\d+(?:\.\d+)?)|(?P<op>==|!=|<=|>=|&&|\|\||[<>!()\[\].,*])"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_-]*))"
)


def _tokens(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    text = text.strip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match or match.end() == pos:
            raise ValueError(f"cannot parse expression at {text[pos:]!r}")
        kind = match.lastgroup or ""
        out.append((kind, match.group(kind)))
        pos = match.end()
    return out


def _truthy(value: Any) -> bool:
    return value not in (None, False, 0, "") and value != 0.0


def _loose(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value.casefold()
    if isinstance(value, bool):
        return float(value)
    return value


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        return a.casefold() == b.casefold()
    if a is None or b is None:
        return a is b
    return bool(_loose(a) == _loose(b))


def stringify(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return str(value)


class _Parser:
    def __init__(self, text: str, context: Mapping[str, Any]) -> None:
        self.tokens = _tokens(text)
        self.pos = 0
        self.context = context

    def peek(self) -> str | None:
        return self.tokens[self.pos][1] if self.pos < len(self.tokens) else None

    def take(self, expected: str | None = None) -> tuple[str, str]:
        token = self.tokens[self.pos]
        if expected is not None and token[1] != expected:
            raise ValueError(f"expected {expected!r}, got {token[1]!r}")
        self.pos += 1
        return token

    def parse(self) -> Any:
        value = self.or_()
        if self.pos != len(self.tokens):
            raise ValueError(f"trailing tokens {self.tokens[self.pos :]}")
        return value

    def or_(self) -> Any:
        value = self.and_()
        while self.peek() == "||":
            self.take()
            other = self.and_()
            value = value if _truthy(value) else other
        return value

    def and_(self) -> Any:
        value = self.compare()
        while self.peek() == "&&":
            self.take()
            other = self.compare()
            value = other if _truthy(value) else value
        return value

    def compare(self) -> Any:
        value = self.unary()
        op = self.peek()
        if op in ("==", "!=", "<", ">", "<=", ">="):
            self.take()
            other = self.unary()
            if op == "==":
                return _equal(value, other)
            if op == "!=":
                return not _equal(value, other)
            a, b = _loose(value), _loose(other)
            return {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[op]
        return value

    def unary(self) -> Any:
        if self.peek() == "!":
            self.take()
            return not _truthy(self.unary())
        return self.primary()

    def primary(self) -> Any:
        kind, text = self.take()
        if text == "(":
            value = self.or_()
            self.take(")")
        elif kind == "str":
            value = text[1:-1].replace("''", "'")
        elif kind == "num":
            value = float(text)
        elif text in ("true", "false"):
            value = text == "true"
        elif text == "null":
            value = None
        elif self.peek() == "(":
            self.take("(")
            args = []
            while self.peek() != ")":
                args.append(self.or_())
                if self.peek() == ",":
                    self.take(",")
            self.take(")")
            value = _call(text, args)
        else:
            value = self.context.get(text)
        while self.peek() in (".", "["):
            if self.take()[1] == ".":
                name = self.take()[1]
                value = value.get(name) if isinstance(value, Mapping) else None
            else:
                key = self.or_()
                self.take("]")
                value = value.get(stringify(key)) if isinstance(value, Mapping) else None
        return value


def _call(name: str, args: list[Any]) -> Any:
    lowered = name.lower()
    if lowered == "fromjson":
        return json.loads(args[0])
    if lowered == "tojson":
        return json.dumps(args[0])
    if lowered == "format":
        return re.sub(r"\{(\d+)\}", lambda m: stringify(args[int(m.group(1)) + 1]), args[0])
    if lowered in ("cancelled", "failure"):
        return False
    if lowered in ("success", "always"):
        return True
    raise ValueError(f"function {name}() is not supported by this test runner")


def evaluate(expression: str, context: Mapping[str, Any]) -> Any:
    return _Parser(expression, context).parse()


def interpolate(value: Any, context: Mapping[str, Any]) -> Any:
    """Replace ``${{ }}``; a value that is one whole expression keeps its type."""
    if not isinstance(value, str):
        return value
    whole = re.fullmatch(r"\s*\$\{\{(.*?)\}\}\s*", value, re.S)
    if whole:
        return evaluate(whole.group(1), context)
    return re.sub(
        r"\$\{\{(.*?)\}\}", lambda m: stringify(evaluate(m.group(1), context)), value, flags=re.S
    )


def condition(text: Any, context: Mapping[str, Any]) -> bool:
    if text is None:
        return True
    if isinstance(text, bool):
        return text
    inner = re.fullmatch(r"\s*\$\{\{(.*)\}\}\s*", str(text), re.S)
    return _truthy(evaluate(inner.group(1) if inner else str(text), context))


# ----------------------------------------------------------------------------- running


def parse_output_file(text: str) -> dict[str, str]:
    """``name=value`` lines and ``name<<DELIM`` … ``DELIM`` blocks."""
    out: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            body = []
            for item in lines:
                if item == delimiter:
                    break
                body.append(item)
            out[name] = "\n".join(body)
        elif "=" in line:
            name, value = line.split("=", 1)
            out[name] = value
    return out


@dataclass
class JobResult:
    result: str  # success | failure | skipped
    outputs: dict[str, str] = field(default_factory=dict)
    logs: list[str] = field(default_factory=list)


@dataclass
class Runner:
    """One workflow run: a temp area, an artifact store and the environment of the machine."""

    root: Path
    github: dict[str, Any]
    env: dict[str, str]
    secrets: dict[str, str] = field(default_factory=dict)
    summaries: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.artifacts = self.root / "artifacts"
        self.artifacts.mkdir(parents=True, exist_ok=True)
        self.bin = self.root / "bin"
        self.bin.mkdir(exist_ok=True)
        for name, command in (
            ("wheel-size", f'exec "{sys.executable}" -m wheel_size "$@"'),
            ("python", f'exec "{sys.executable}" "$@"'),
        ):
            shim = self.bin / name
            shim.write_text(f"#!/usr/bin/env bash\n{command}\n")
            shim.chmod(0o755)

    # The workflow's steps that use actions, played by stand-ins.
    def _uses(self, uses: str, with_: Mapping[str, Any], workdir: Path) -> None:
        action = uses.split("@", 1)[0]
        if action == "actions/setup-python":
            return
        if action == "actions/upload-artifact":
            target = self.artifacts / str(with_["name"])
            if target.exists():
                raise AssertionError(f"artifact {with_['name']} uploaded twice")
            pattern = workdir / str(with_["path"])  # an absolute path replaces workdir
            files = sorted(Path(pattern.anchor).glob(str(pattern.relative_to(pattern.anchor))))
            if not files and with_.get("if-no-files-found") == "error":
                raise AssertionError(f"upload-artifact: nothing matches {with_['path']}")
            target.mkdir(parents=True)
            for file in files:
                if file.is_dir():  # a directory is uploaded with its contents, as GitHub does
                    shutil.copytree(file, target, dirs_exist_ok=True)
                else:
                    shutil.copy2(file, target / file.name)
            return
        if action == "actions/download-artifact":
            dest = Path(str(with_.get("path") or workdir))
            names = sorted(p.name for p in self.artifacts.iterdir())
            if with_.get("name"):
                chosen = [str(with_["name"])]
                if chosen[0] not in names:
                    raise AssertionError(f"download-artifact: no artifact {chosen[0]}")
            else:
                chosen = [n for n in names if fnmatch.fnmatch(n, str(with_.get("pattern", "*")))]
            for name in chosen:
                into = dest if with_.get("merge-multiple") or with_.get("name") else dest / name
                into.mkdir(parents=True, exist_ok=True)
                for file in (self.artifacts / name).iterdir():
                    shutil.copy2(file, into / file.name)
            return
        raise AssertionError(f"no stand-in for {uses}")

    def run_job(
        self,
        job_id: str,
        job: Mapping[str, Any],
        context: dict[str, Any],
        matrix: Mapping[str, Any] | None = None,
    ) -> JobResult:
        leg = f"{job_id}-{'-'.join(str(v) for v in matrix.values())}" if matrix else job_id
        workdir = self.root / "work" / re.sub(r"[^\w.-]+", "_", leg)
        workdir.mkdir(parents=True, exist_ok=True)
        temp = self.root / "temp" / workdir.name
        temp.mkdir(parents=True, exist_ok=True)
        ctx = dict(context, matrix=dict(matrix or {}), steps={}, runner={"temp": str(temp)})
        summary = temp / "summary.md"
        result = JobResult("success")
        for index, step in enumerate(job.get("steps") or []):
            if not condition(step.get("if"), ctx):
                continue
            step_env = {
                k: stringify(interpolate(v, ctx)) for k, v in (step.get("env") or {}).items()
            }
            if "uses" in step:
                with_ = {k: interpolate(v, ctx) for k, v in (step.get("with") or {}).items()}
                self._uses(step["uses"], with_, workdir)
                continue
            script = str(step["run"])
            if "pip install" in script:
                continue  # the shim runs this checkout instead
            output = temp / f"output-{index}"
            output.write_text("")
            env = {
                **self.env,
                "PATH": f"{self.bin}{os.pathsep}{self.env.get('PATH', os.environ['PATH'])}",
                "PYTHONPATH": str(SRC),
                "GITHUB_OUTPUT": str(output),
                "GITHUB_STEP_SUMMARY": str(summary),
                "GITHUB_WORKSPACE": str(workdir),
                "RUNNER_TEMP": str(temp),
                "GITHUB_REPOSITORY": str(self.github["repository"]),
                **step_env,
            }
            proc = subprocess.run(
                ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
                cwd=workdir,
                env=env,
                capture_output=True,
                text=True,
                timeout=600,
                check=False,
            )
            result.logs.append(f"$ {step.get('name', script)}\n{proc.stdout}{proc.stderr}")
            if step.get("id"):
                ctx["steps"][step["id"]] = {"outputs": parse_output_file(output.read_text())}
            if proc.returncode != 0:
                result.result = "failure"
                break
        if summary.exists():
            self.summaries.append(summary.read_text())
        if result.result == "success":
            result.outputs = {
                k: stringify(interpolate(v, ctx)) for k, v in (job.get("outputs") or {}).items()
            }
        return result

    def run_workflow(
        self, workflow: Mapping[str, Any], inputs: Mapping[str, Any]
    ) -> dict[str, JobResult]:
        """Every job in dependency order (``needs``), matrix legs one after another."""
        triggers = workflow.get("on") or workflow.get(True)  # type: ignore[call-overload]
        declared = (triggers or {})["workflow_call"]["inputs"]
        values = {k: spec.get("default") for k, spec in declared.items()}
        values.update(inputs)
        github = dict(self.github, token="ghs_runner_token")
        results: dict[str, JobResult] = {}
        jobs = dict(workflow["jobs"])
        while len(results) < len(jobs):
            for job_id, job in jobs.items():
                needs = job.get("needs") or []
                needs = [needs] if isinstance(needs, str) else needs
                if job_id in results or any(n not in results for n in needs):
                    continue
                ctx = {
                    "inputs": values,
                    "github": github,
                    "secrets": self.secrets,
                    "needs": {
                        n: {"result": results[n].result, "outputs": results[n].outputs}
                        for n in needs
                    },
                }
                # Without a status function in `if:`, GitHub requires every need to succeed.
                needs_ok = all(results[n].result == "success" for n in needs)
                explicit = re.search(r"\b(always|cancelled|failure|success)\(", str(job.get("if")))
                if not (explicit or needs_ok) or not condition(job.get("if"), ctx):
                    results[job_id] = JobResult("skipped")
                    continue
                strategy = job.get("strategy") or {}
                matrix = interpolate(strategy.get("matrix"), ctx) if strategy else None
                if matrix:
                    legs = [self.run_job(job_id, job, ctx, leg) for leg in matrix["include"]]
                    failed = any(leg.result != "success" for leg in legs)
                    merged = JobResult("failure" if failed else "success")
                    for leg in legs:
                        merged.logs += leg.logs
                        merged.outputs.update(leg.outputs)
                    results[job_id] = merged
                else:
                    results[job_id] = self.run_job(job_id, job, ctx)
        return results
