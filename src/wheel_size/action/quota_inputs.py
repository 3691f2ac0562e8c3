"""The ``quota-*`` inputs of the check and audit actions: the project quota, as
``--quota-project`` and its companions give it on the command line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from wheel_size.errors import InputError

if TYPE_CHECKING:
    from wheel_size.action.inputs import Inputs
    from wheel_size.quota.model import QuotaOptions

__all__ = ["quota_input"]


def quota_input(read: Inputs) -> QuotaOptions | None:
    """``quota-project`` (empty: no quota), its limit in GiB and the index it is read from."""
    from wheel_size.quota.model import DEFAULT_PROJECT_LIMIT_GB, QuotaOptions

    project = read.text("quota-project")
    limit = read.optional_number("quota-limit-gb")
    if not project:
        if limit is not None:
            raise InputError("input quota-limit-gb needs quota-project")
        return None
    try:
        return QuotaOptions(
            project=project,
            index_url=read.text("quota-index"),
            limit_gb=DEFAULT_PROJECT_LIMIT_GB if limit is None else limit,
        )
    except InputError as exc:
        raise InputError(f"input quota-limit-gb: {exc}") from None
