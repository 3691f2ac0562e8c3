"""Each action's inputs are declared once (issue 33 item 4): ``action/tables/`` holds one
table per action, and ``action.yml``, the catalog, the parser's kinds and defaults and the
README tables all come from it. Adding an input is one entry in a table."""

from __future__ import annotations

import dataclasses
import re
import sys
from pathlib import Path

import pytest
import yaml

from conftest import REPO_ROOT
from wheel_size.action.catalog import ACTIONS, check_inputs
from wheel_size.action.inputs import (
    FLAG,
    ITEMS,
    LINES,
    MEGABYTES,
    TEXT,
    WORDS,
    ActionSpec,
    Choice,
    Input,
    Integer,
    Number,
    env_name,
)
from wheel_size.errors import InputError

sys.path.insert(0, str(REPO_ROOT / "scripts"))
import gen_action_docs

sys.path.remove(str(REPO_ROOT / "scripts"))


@pytest.mark.parametrize("name", sorted(ACTIONS))
def test_each_action_yml_declares_its_table(name: str) -> None:
    """The ``inputs:`` block of every action.yml is exactly what its table generates, in the
    table's order (``python scripts/gen_action_docs.py`` rewrites it)."""
    spec = ACTIONS[name]
    path = gen_action_docs.action_yml_path(spec)
    text = path.read_text(encoding="utf-8")
    assert gen_action_docs.regenerate_action_yml(text, spec, path) == text
    inputs = yaml.safe_load(text)["inputs"]
    assert list(inputs) == [i.name for i in spec.declared]
    for declared in spec.declared:
        assert inputs[declared.name]["default"] == declared.default
        assert inputs[declared.name]["description"] == declared.description
        assert inputs[declared.name].get("deprecationMessage") == declared.deprecation


def test_a_new_input_in_one_table_entry_reaches_parser_yml_docs_and_catalog() -> None:
    """The one edit that adds an input: an ``Input(...)`` entry in the action's table. Added
    here to a copy of the nightly table, it is parsed (default, value, one-line error),
    written into action.yml and the README table, and refused by the other actions."""
    new = Input("keep-nights", Integer(minimum=1), "7", "Nights kept | shown <here>.")
    track = dataclasses.replace(ACTIONS["track"], declared=(*ACTIONS["track"].declared, new))
    actions = {**ACTIONS, "track": track}

    assert track.read({}).integer("keep-nights") == 7  # the declared default
    assert track.read({"INPUT_KEEP-NIGHTS": " 3 "}).integer("keep-nights") == 3
    for given, said in (
        ("many", "must be a whole number, not 'many'"),
        ("0", "must be at least 1"),
    ):
        with pytest.raises(InputError, match=f"^input keep-nights {said}$"):
            track.read({"INPUT_KEEP-NIGHTS": given}).check_all()

    root = (REPO_ROOT / "action.yml").read_text(encoding="utf-8")
    written = yaml.safe_load(gen_action_docs.regenerate_action_yml(root, track, Path("a.yml")))
    assert written["inputs"]["keep-nights"] == {
        "description": "Nights kept | shown <here>.", "required": False, "default": "7",
    }  # fmt: skip
    assert written["outputs"] == yaml.safe_load(root)["outputs"]  # the rest is kept
    table = gen_action_docs.inputs_table(track)
    assert "| `keep-nights` | `7` | Nights kept \\| shown &lt;here>. |" in table.splitlines()

    check_inputs({"INPUT_KEEP-NIGHTS": "3"}, track.inputs, track, actions)
    with pytest.raises(InputError, match=r"^input keep-nights is not an input of the check"):
        check_inputs({"INPUT_KEEP-NIGHTS": "3"}, ACTIONS["check"].inputs, ACTIONS["check"], actions)


def test_every_declared_input_is_read_by_the_action_package() -> None:
    """No declaration without a reader: each input's name is read somewhere in action/."""
    package = REPO_ROOT / "src" / "wheel_size" / "action"
    code = "".join(
        p.read_text(encoding="utf-8") for p in package.glob("*.py")
    )  # the tables are a folder of their own, not read here
    declared = {i.name for spec in ACTIONS.values() for i in spec.declared}
    assert sorted(n for n in declared if f'"{n}"' not in code) == []


def test_no_parser_of_its_own_is_left_in_the_action_package() -> None:
    """The input kinds live in action/inputs.py only (before: _integer, _number, _mb and
    _list copied into track_inputs.py, split.py, check.py and bisect.py)."""
    package = REPO_ROOT / "src" / "wheel_size" / "action"
    copies = [
        f"{p.name}: {m.group(0)}"
        for p in package.glob("*.py")
        if p.name != "inputs.py"
        for m in re.finditer(r"def _(integer|number|mb|list|float|int)\b", p.read_text())
    ]
    assert copies == []


def test_each_kind_refuses_in_one_line_naming_the_input() -> None:
    spec = ActionSpec(
        "t", "t", "test action",
        (
            Input("n", Integer(), "", ""), Input("f", Number(), "", ""),
            Input("mb", MEGABYTES, "", ""), Input("s", Number("seconds"), "", ""),
            Input("b", FLAG, "", ""), Input("c", Choice(("a", "b", "c")), "", ""),
            Input("e", Choice(("x", "y"), or_empty=True), "", ""),
        ),
    )  # fmt: skip
    cases = {
        "n": ("2.5", "input n must be a whole number, not '2.5'"),
        "f": ("nan", "input f must be a number, not 'nan'"),
        "mb": ("1e999", "input mb must be a number of MB, not '1e999'"),
        "s": ("soon", "input s must be a number of seconds, not 'soon'"),
        "b": ("maybe", "input b must be true or false, not 'maybe'"),
        "c": ("d", "input c must be a, b or c, not 'd'"),
        "e": ("z", "input e must be x or y (or empty), not 'z'"),
    }
    for name, (given, said) in cases.items():
        with pytest.raises(InputError) as caught:
            spec.read({f"INPUT_{name.upper()}": given}).check_all()
        assert str(caught.value) == said
    read = spec.read({"INPUT_MB": "1.5", "INPUT_B": "Off", "INPUT_C": "b"})
    assert (read.optional_number("mb"), read.flag("b"), read.text("c")) == (1.5, False, "b")
    assert read.optional_integer("n") is None and read.optional_text("e") is None


def test_lists_and_empty_values() -> None:
    spec = ActionSpec(
        "t", "t", "test action",
        (
            Input("w", WORDS, "", ""), Input("i", ITEMS, "a b, c", ""), Input("l", LINES, "", ""),
            Input("branch", TEXT, "nightly", "", empty_is_value=True),
            Input("token", TEXT, "${{ github.token }}", ""),
        ),
    )  # fmt: skip
    read = spec.read({"INPUT_W": "x.whl, y.whl\nz.whl", "INPUT_L": "a>=1\n\n b<2 \n"})
    assert read.items("w") == ["x.whl", "y.whl", "z.whl"]
    assert read.items("i") == ["a b", "c"]  # the default; spaces belong to an item
    assert read.items("l") == ["a>=1", "b<2"]
    assert read.text("branch") == "nightly"  # not set at all: the default
    assert spec.read({"INPUT_BRANCH": ""}).optional_text("branch") is None  # set empty: none
    assert read.text("token") == ""  # an expression is the runner's default, not the job's


def test_reading_an_undeclared_input_or_another_kind_is_a_bug() -> None:
    read = ACTIONS["audit"].read({})
    with pytest.raises(LookupError):
        read.text("threshold-mb")  # the nightly's, not the audit's
    with pytest.raises(TypeError):
        read.integer("report-path")  # declared as text
    with pytest.raises(LookupError):
        ACTIONS["check"].read({}).number("check-budget-pct")  # no default: optional_number


def test_the_split_action_and_its_container_agree_on_wheel_type() -> None:
    """Before, ``wheel-type`` defaulted to torch-fat in split/action.yml but to no preset
    when the variable was absent (``docker run -e INPUT_…``, ``python -m
    wheel_size.action split``); now both read the table's default."""
    from wheel_size.action.split import split_options

    assert split_options({}).databases == split_options({"INPUT_WHEEL-TYPE": "torch-fat"}).databases
    assert split_options({"INPUT_WHEEL-TYPE": ""}).databases == ()


def test_every_input_a_workflow_passes_to_the_job_is_declared() -> None:
    """The reusable workflow runs ``python -m wheel_size.action [name]`` with ``INPUT_*``
    variables of its own; one the table does not declare would be ignored without a word
    (the catalog refuses only another action's inputs)."""
    seen = 0
    shipped = [*(REPO_ROOT / ".github" / "workflows").glob("*.yml")]
    for path in [*shipped, *(REPO_ROOT / "docs" / "examples").glob("*.yml")]:
        for job in (yaml.safe_load(path.read_text(encoding="utf-8")).get("jobs") or {}).values():
            for step in job.get("steps") or []:
                run = re.search(r"python -m wheel_size\.action\b *(\w*)", str(step.get("run", "")))
                if run is None:
                    continue
                declared = {env_name(n) for n in ACTIONS[run.group(1) or "track"].inputs}
                given = {k for k in step.get("env") or {} if k.startswith("INPUT_")}
                assert sorted(given - declared) == [], path
                seen += len(given)
    assert seen > 20


def test_table_defaults_are_the_command_lines() -> None:
    """Where the CLI has a named default, the action's table says the same."""
    from wheel_size.audit.run import DEFAULT_MAX_DOWNLOAD_MB as AUDIT_MAX_MB
    from wheel_size.check.ack import DEFAULT_FOOTER
    from wheel_size.collect.jobs import DEFAULT_JOB_PATTERN
    from wheel_size.evidence import options
    from wheel_size.quota.model import DEFAULT_PROJECT_LIMIT_GB

    def default(action: str, name: str) -> str:
        return next(i.default for i in ACTIONS[action].declared if i.name == name)

    assert default("track", "evidence-max-download-mb") == str(options.DEFAULT_MAX_DOWNLOAD_MB)
    assert default("track", "evidence-memory-mb") == str(options.DEFAULT_MEMORY_MB)
    assert default("track", "evidence-time-budget") == str(options.DEFAULT_TIME_BUDGET)
    assert default("track", "job-pattern") == DEFAULT_JOB_PATTERN
    assert default("audit", "audit-max-download-mb") == str(AUDIT_MAX_MB)
    assert default("check", "check-footer") == DEFAULT_FOOTER
    assert (
        "Empty: 10."
        in next(i.description for i in ACTIONS["audit"].declared if i.name == "quota-limit-gb")
        and DEFAULT_PROJECT_LIMIT_GB == 10.0
    )


def test_the_outputs_each_job_writes_are_its_action_yml_outputs() -> None:
    """Outputs stay declared in action.yml (the runner's contract); the names each job
    writes must be those, in that order."""
    from wheel_size.action.audit import AUDIT_OUTPUTS
    from wheel_size.action.check import CHECK_OUTPUTS
    from wheel_size.action.split import SPLIT_OUTPUTS

    for name, written in (("check", CHECK_OUTPUTS), ("split", SPLIT_OUTPUTS),
                          ("audit", AUDIT_OUTPUTS)):  # fmt: skip
        path = gen_action_docs.action_yml_path(ACTIONS[name])
        assert list(yaml.safe_load(path.read_text(encoding="utf-8"))["outputs"]) == list(written)
