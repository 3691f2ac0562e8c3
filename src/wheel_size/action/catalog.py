"""The four actions of this repository and the inputs each one takes.

One image serves four ``action.yml`` files: the nightly job at the root
(``uses: OWNER/wheel-size-action@v1``) and ``check/``, ``split/`` and ``audit/``
(``uses: OWNER/wheel-size-action/check@v1``), which pass their name as the container's
argument. The runner hands every ``with:`` entry to the container as ``INPUT_<NAME>``, even
one the action does not declare (it only warns), so an input meant for another action would
be silently ignored; :func:`check_inputs` turns it into an error naming the action that
has it. Each action's inputs are declared once, in :mod:`wheel_size.action.tables`; the
``action.yml`` files are generated from them (``scripts/gen_action_docs.py``, checked by
``tests/action/test_input_tables.py``).
"""

from __future__ import annotations

from collections.abc import Mapping

from wheel_size.action.inputs import ActionSpec, env_name
from wheel_size.action.tables.audit import AUDIT
from wheel_size.action.tables.check import CHECK
from wheel_size.action.tables.split import SPLIT
from wheel_size.action.tables.track import TRACK
from wheel_size.errors import InputError

__all__ = ["ACTIONS", "DEPRECATED_MODES", "ActionSpec", "check_inputs", "uses_line"]

ACTIONS: dict[str, ActionSpec] = {spec.name: spec for spec in (TRACK, CHECK, SPLIT, AUDIT)}
# ``mode:`` of the root action, kept for v1 only: the action each one now is.
DEPRECATED_MODES = ("split", "audit", "check")


def uses_line(spec: ActionSpec, env: Mapping[str, str]) -> str:
    """``OWNER/wheel-size-action/check@v1`` as the user would write it (the repository and
    ref the runner says this step uses, else placeholders)."""
    repo = env.get("GITHUB_ACTION_REPOSITORY") or "OWNER/wheel-size-action"
    ref = env.get("GITHUB_ACTION_REF") or "v1"
    return f"{repo}{'/' + spec.directory if spec.directory else ''}@{ref}"


def check_inputs(
    env: Mapping[str, str],
    allowed: frozenset[str],
    running: ActionSpec,
    actions: Mapping[str, ActionSpec] = ACTIONS,
) -> None:
    """Refuse an ``INPUT_*`` that belongs to another action only (one line naming that
    action and how to use it). Inputs no action knows are left to the runner's warning."""
    known = {env_name(name): name for spec in actions.values() for name in spec.inputs}
    for key in sorted(env):
        name = known.get(key)
        if name is None or name in allowed:
            continue
        owners = [spec for spec in actions.values() if name in spec.inputs]
        where = " or ".join(f"uses: {uses_line(spec, env)}" for spec in owners)
        raise InputError(
            f"input {name} is not an input of the {running.what}; it belongs to "
            f"{' and '.join('the ' + spec.what for spec in owners)}: move it to a step with "
            f"{where}"
        )
