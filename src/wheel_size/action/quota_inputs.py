"""The ``quota-*`` inputs of the check and audit actions: the project quota, as
``--quota-project`` and its companions give it on the command line."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from wheel_size.action.inputs import action_input
from wheel_size.errors import InputError

if TYPE_CHECKING:
    from wheel_size.quota.model import QuotaOptions

__all__ = ["quota_input"]


def quota_input(env: Mapping[str, str]) -> QuotaOptions | None:
    """``quota-project`` (empty: no quota), its limit in GiB and the index it is read from."""
    from wheel_size.quota.model import DEFAULT_PROJECT_LIMIT_GB, QuotaOptions

    project = action_input(env, "quota-project")
    limit = action_input(env, "quota-limit-gb")
    if not project:
        if limit:
            raise InputError("input quota-limit-gb needs quota-project")
        return None
    try:
        limit_gb = float(limit) if limit else DEFAULT_PROJECT_LIMIT_GB
    except ValueError:
        raise InputError(f"input quota-limit-gb must be a number of GB, not {limit!r}") from None
    try:
        return QuotaOptions(
            project=project,
            index_url=action_input(env, "quota-index") or "https://pypi.org",
            limit_gb=limit_gb,
        )
    except InputError as exc:
        raise InputError(f"input quota-limit-gb: {exc}") from None
