"""The nightly job as one library call, and what its result says to a workflow.

::

    with open_store(StoreLocation(data_branch="wheel-size-data"), token=token) as store:
        result = run_nightly(store, NightlyOptions(TrackOptions(source)), github)
    outputs = nightly_outputs(result)              # the outputs action.yml names
    summary = nightly_summary(result, ...)         # "did last night grow?" first

The CLI (``wheel-size track``) and the Action (``mode: track``) only turn their flags or
inputs into :class:`NightlyOptions` and write what these functions return.
"""

from wheel_size.nightly.options import NightlyOptions
from wheel_size.nightly.run import run_nightly
from wheel_size.nightly.summary import (
    jump_annotation,
    nightly_outputs,
    nightly_summary,
)

__all__ = [
    "NightlyOptions",
    "jump_annotation",
    "nightly_outputs",
    "nightly_summary",
    "run_nightly",
]
