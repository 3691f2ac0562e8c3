"""Our action and workflow files, and a small check of the references between them.

The schemas say a file is well formed; they do not say that ``with: thresold-mb: 5`` names an
input that exists, or that ``${{ inputs.x }}`` is declared. actionlint catches part of that
for workflow files but cannot follow a ``uses:`` to another repository, so callers of our
reusable workflow and action (docs/examples, README snippets) are checked here against the
inputs our own files declare.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]
ACTION = REPO_ROOT / "action.yml"
ACTIONS = [ACTION, *(REPO_ROOT / name / "action.yml" for name in ("check", "split", "audit"))]
REUSABLE = REPO_ROOT / ".github" / "workflows" / "wheel-size.yml"

# `uses:` values that mean "our reusable workflow" / "our action", from any owner and ref.
_OUR_WORKFLOW = re.compile(
    r"(?:^\./|/wheel-size-action/)\.github/workflows/wheel-size\.ya?ml(?:@|$)"
)
_OUR_ACTION = re.compile(
    r"^(?:\./?|[\w.-]+/wheel-size-action)(?P<sub>/?(?:check|split|audit))?/?(?:@.*)?$"
)
_CONTEXT_REF = re.compile(r"\b(inputs|secrets)\.([A-Za-z_][\w-]*)")
_EXPRESSION = re.compile(r"\$\{\{(.*?)\}\}", re.S)
_YAML_BLOCK = re.compile(r"^```ya?ml\n(.*?)^```", re.M | re.S)


def workflow_files() -> list[Path]:
    """Every workflow we ship or tell people to copy."""
    files = sorted((REPO_ROOT / ".github" / "workflows").glob("*.y*ml"))
    files += sorted((REPO_ROOT / "docs" / "examples").glob("*.y*ml"))
    return files


def load_yaml(path: Path) -> Any:
    with path.open("rb") as handle:
        return yaml.safe_load(handle)


def triggers(workflow: Mapping[Any, Any]) -> Mapping[str, Any]:
    """The ``on:`` mapping (YAML 1.1 reads a bare ``on`` key as True)."""
    value = workflow.get("on", workflow.get(True))
    if isinstance(value, str):
        return {value: None}
    if isinstance(value, list):
        return dict.fromkeys(value)
    return value or {}


def declared_inputs(path: Path) -> dict[str, Mapping[str, Any]]:
    """Inputs of an action.yml, or of a workflow's workflow_call/workflow_dispatch."""
    doc = load_yaml(path)
    if path.name in ("action.yml", "action.yaml"):
        return dict(doc.get("inputs") or {})
    found: dict[str, Mapping[str, Any]] = {}
    for event in ("workflow_call", "workflow_dispatch"):
        spec = triggers(doc).get(event) or {}
        found.update((spec.get("inputs") or {}) if isinstance(spec, Mapping) else {})
    return found


def declared_secrets(path: Path) -> set[str]:
    spec = triggers(load_yaml(path)).get("workflow_call") or {}
    return set((spec.get("secrets") or {}) if isinstance(spec, Mapping) else {})


def _strings(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, Mapping):
        for key, value in node.items():
            if isinstance(key, str):
                yield key
            yield from _strings(value)
    elif isinstance(node, list):
        for item in node:
            yield from _strings(item)


def context_references(doc: Any) -> set[tuple[str, str]]:
    """Every ``inputs.x`` / ``secrets.x`` used inside ``${{ }}`` (and in ``if:``)."""
    refs: set[tuple[str, str]] = set()
    for text in _strings(doc):
        for expression in _EXPRESSION.findall(text):
            refs.update(_CONTEXT_REF.findall(expression))
    for job in (doc.get("jobs") or {}).values() if isinstance(doc, Mapping) else ():
        conditions = [job.get("if")] + [s.get("if") for s in job.get("steps") or []]
        for condition in conditions:
            if isinstance(condition, str) and "${{" not in condition:
                refs.update(_CONTEXT_REF.findall(condition))
    return refs


def label(path: Path) -> str:
    """``path`` relative to the checkout when it is inside it."""
    try:
        return str(path.relative_to(REPO_ROOT))
    except ValueError:
        return str(path)


def undefined_references(path: Path) -> list[str]:
    """``inputs.x`` / ``secrets.x`` used in ``path`` but declared nowhere in it."""
    doc = load_yaml(path)
    inputs = set(declared_inputs(path))
    secrets = declared_secrets(path) | {"GITHUB_TOKEN"}
    problems = []
    for context, name in sorted(context_references(doc)):
        known = inputs if context == "inputs" else secrets
        if context == "secrets" and path.name.startswith("action."):
            continue  # an action cannot see secrets; the schema check reports misuse
        if name not in known:
            problems.append(f"{label(path)}: {context}.{name} is not declared")
    return problems


def calls_of(doc: Any) -> Iterator[tuple[str, str, Mapping[str, Any], Mapping[str, Any]]]:
    """(where, uses, with, secrets) for every job or step that uses our workflow or action."""
    if not isinstance(doc, Mapping):
        return
    for job_id, job in (doc.get("jobs") or {}).items():
        if not isinstance(job, Mapping):
            continue
        uses = job.get("uses")
        if isinstance(uses, str) and _OUR_WORKFLOW.search(uses):
            yield f"jobs.{job_id}", uses, job.get("with") or {}, job.get("secrets") or {}
        for index, step in enumerate(job.get("steps") or []):
            uses = step.get("uses") if isinstance(step, Mapping) else None
            if isinstance(uses, str) and _OUR_ACTION.match(uses):
                yield f"jobs.{job_id}.steps[{index}]", uses, step.get("with") or {}, {}


def _type_problem(name: str, value: Any, spec: Mapping[str, Any]) -> str | None:
    kind = spec.get("type")
    if isinstance(value, str) and "${{" in value:
        return None  # decided at run time
    if kind == "boolean" and not isinstance(value, bool):
        return f"input {name} is a boolean, got {value!r}"
    if kind == "number" and (isinstance(value, bool) or not isinstance(value, (int, float))):
        return f"input {name} is a number, got {value!r}"
    if kind == "string" and not isinstance(value, str):
        return f"input {name} is a string, got {value!r} (quote it)"
    return None


def call_problems(doc: Any, where: str) -> list[str]:
    """Problems with the ``with:`` / ``secrets:`` of every call of our files in ``doc``."""
    problems = []
    for place, uses, with_, secrets in calls_of(doc):
        is_workflow = bool(_OUR_WORKFLOW.search(uses))
        target = REUSABLE if is_workflow else action_file(uses)
        if not target.is_file():
            problems.append(f"{where}: {place} uses {uses} but {target.name} does not exist")
            continue
        inputs = declared_inputs(target)
        for name, value in with_.items():
            if name not in inputs:
                problems.append(f"{where}: {place} passes unknown input {name!r} to {uses}")
            elif is_workflow and (problem := _type_problem(name, value, inputs[name])):
                problems.append(f"{where}: {place}: {problem}")
        for name, spec in inputs.items():
            required = isinstance(spec, Mapping) and spec.get("required") and "default" not in spec
            if required and name not in with_:
                problems.append(f"{where}: {place} misses required input {name!r}")
        if is_workflow and isinstance(secrets, Mapping):
            unknown = set(secrets) - declared_secrets(target)
            problems.extend(
                f"{where}: {place} passes unknown secret {name!r}" for name in sorted(unknown)
            )
    return problems


def action_env_problems(doc: Any, where: str) -> list[str]:
    """Steps that run the action's job on the runner (``python -m wheel_size.action``) pass
    its inputs as ``INPUT_<NAME>`` variables: each must name an input of action.yml (the
    runner's rule: upper-cased, spaces to ``_``, hyphens kept)."""
    if not isinstance(doc, Mapping) or not ACTION.is_file():
        return []
    known = {name.replace(" ", "_").upper(): name for name in declared_inputs(ACTION)}
    problems = []
    for job_id, job in (doc.get("jobs") or {}).items():
        for index, step in enumerate(job.get("steps") or [] if isinstance(job, Mapping) else []):
            if "wheel_size.action" not in str(step.get("run", "")):
                continue
            for key in step.get("env") or {}:
                if key.startswith("INPUT_") and key[len("INPUT_") :] not in known:
                    problems.append(
                        f"{where}: jobs.{job_id}.steps[{index}] sets {key}, "
                        "which is not an input of action.yml"
                    )
    return problems


def action_file(uses: str) -> Path:
    """The action.yml a ``uses:`` of our action names: the root one, or check/, split/,
    audit/ (``org/wheel-size-action/check@v1``, ``./check``)."""
    match = _OUR_ACTION.match(uses)
    sub = (match["sub"] or "").strip("/") if match else ""
    return REPO_ROOT / sub / "action.yml" if sub else ACTION


def markdown_snippets(path: Path) -> list[tuple[str, str]]:
    """(label, text) of the YAML code blocks in a Markdown file that call our files."""
    text = path.read_text(encoding="utf-8")
    snippets = []
    for number, match in enumerate(_YAML_BLOCK.finditer(text), 1):
        block = match.group(1)
        if "wheel-size-action" in block or "wheel-size.yml" in block:
            line = text.count("\n", 0, match.start()) + 1
            snippets.append((f"{path.relative_to(REPO_ROOT)}:{line} (yaml block {number})", block))
    return snippets
