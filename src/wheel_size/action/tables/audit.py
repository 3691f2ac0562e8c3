"""The audit action's inputs (``audit/action.yml``).

One entry per input, in the order ``action.yml`` lists them: ``action.yml``, the catalog,
the parser's defaults and the README tables come from here (``scripts/gen_action_docs.py``).
"""

from __future__ import annotations

from wheel_size.action.inputs import FLAG, TEXT, WORDS, ActionSpec, Input, Integer
from wheel_size.action.tables import common

__all__ = ["AUDIT"]

# fmt: off
AUDIT = ActionSpec(
    "audit", "audit", "audit action",
    (
        Input("github-token", TEXT, "${{ github.token }}",
              "Token that reads the artifacts of audit-run-id (`actions: read`); unused without "
              "it."),
        Input("audit-input", TEXT, "",
              "The wheels of a build matrix, as paths or globs relative to the workspace or "
              "absolute inside it: wheels, folders of downloaded artifacts (searched recursively)"
              " or artifact zips."),
        Input("audit-run-id", TEXT, "",
              "Also audit every artifact of this workflow run of `repository` (needs actions "
              "read)."),
        Input("repository", TEXT, "${{ github.repository }}",
              "Repository of audit-run-id, OWNER/NAME."),
        Input("audit-artifact-pattern", TEXT, "*",
              "Only the run's artifacts whose name matches this glob."),
        Input("audit-strict", FLAG, "false",
              "Fail the step when a wheel should be dropped or fixed."),
        Input("audit-max-download-mb", Integer(minimum=0), "4096",
              "Skip run artifacts larger than this many MB (1 MB = 1,048,576 bytes; 0 - no "
              "limit), as `wheel-size audit --max-download-mb`."),
        Input("audit-prefer", WORDS, "",
              "Globs over wheel paths or job names to keep first, of identical builds and of jobs"
              " writing the same file name (in order; see docs/audit-format.md)."),
        Input("quota-project", TEXT, "",
              "Add the project quota: the project's files on the index now (every file of every "
              "release, from its JSON API), the wheels the audit keeps, and the headroom under "
              "the project's limit. Empty: no quota."),
        common.QUOTA_LIMIT_GB,
        common.QUOTA_INDEX,
        Input("report-path", TEXT, "wheel-size-audit.md",
              "Where to write the Markdown report, relative to the workspace or absolute inside "
              "it (a .json is written next to it)."),
    ),
)
# fmt: on
