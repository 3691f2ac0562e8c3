"""The pull-request check's inputs (``check/action.yml``).

One entry per input, in the order ``action.yml`` lists them: ``action.yml``, the catalog,
the parser's defaults and the README tables come from here (``scripts/gen_action_docs.py``).
"""

from __future__ import annotations

from wheel_size.action.inputs import (
    FLAG,
    MEGABYTES,
    NUMBER,
    TEXT,
    ActionSpec,
    Choice,
    Input,
    Number,
)
from wheel_size.action.tables import common
from wheel_size.check.request import COMPARE_WITH

__all__ = ["CHECK"]

# fmt: off
CHECK = ActionSpec(
    "check", "check", "check action",
    (
        Input("github-token", TEXT, "${{ github.token }}",
              "Token that reads the data branch (`contents: read`) and the nightly artifact "
              "(`actions: read`), and posts the comment (`pull-requests: write`)."),
        Input("check-wheels", TEXT, "",
              "The pull request's wheels: paths or globs relative to the workspace or absolute "
              "inside it (dist/*.whl, or the same under github.workspace): wheels, or folders of "
              "downloaded artifacts named by artifact-pattern. Required."),
        Input("repository", TEXT, "${{ github.repository }}",
              "Repository whose nightly is compared against, OWNER/NAME."),
        Input("workflow", TEXT, "",
              "The nightly build workflow (id or file name) whose stored nights are compared "
              "against; empty for any workflow in the history."),
        common.PYTHON,
        common.ARTIFACT_PATTERN,
        Input("data-branch", TEXT, "wheel-size-data",
              "Branch of this repository that holds the history the nightly job stores."),
        common.DATA_REMOTE,
        Input("git-timeout", Number("seconds"), "",
              "Seconds the git fetch of the data branch may take before it is stopped; default "
              "120, or $WHEEL_SIZE_GIT_TIMEOUT."),
        Input("history-dir", TEXT, "",
              "Read the history from this directory instead of a data branch (e.g. restored with "
              "actions/cache)."),
        Input("check-budget-mb", MEGABYTES, "5",
              "Growth in MB (1,048,576 bytes) a wheel may add against the nightly it is compared "
              "with; 0 turns it off."),
        Input("check-budget-pct", NUMBER, "",
              "Growth in percent a wheel may add; empty turns it off."),
        common.CEILING_MB,
        common.CEILINGS,
        common.PYPI_LIMIT_MB,
        Input("ceiling-ack", TEXT, "",
              "Accept a known breach of ceiling-mb / ceilings for this reason (e.g. a repository "
              "variable): a notice instead of an error. Never a pypi-limit-mb breach: PyPI "
              "refuses the upload."),
        Input("check-footer", TEXT, "Wheel-Size",
              "A line \"<footer>: <reason>\" in the pull request's description accepts an "
              "increase over budget."),
        Input("head-sha", TEXT, "",
              "In a workflow_run job, the head commit of the run that built the pull request's "
              "wheels (github.event.workflow_run.head_sha, the default when the triggering run "
              "was a pull request's); the pull request is the open one with this head, and "
              "pr-number, if set, must be it."),
        Input("head-repository", TEXT, "",
              "OWNER/NAME of that run's head repository, a fork's for a fork (default - from the "
              "workflow_run event, as head-sha)."),
        Input("head-branch", TEXT, "",
              "That run's head branch, to find a fork's pull request in one request (default - "
              "from the workflow_run event, as head-sha)."),
        Input("check-comment", FLAG, "true",
              "Post the result as one comment on the pull request (pr-number, or the one head-sha"
              " finds), updated in place (needs pull-requests or issues write)."),
        Input("check-max-download-mb", MEGABYTES, "4096",
              "Download the nightly's artifact for a content diff up to this size; 0 compares "
              "sizes only."),
        Input("compare-with", Choice(COMPARE_WITH, or_empty=True), "",
              "merge-base - the stored night built from the nearest ancestor of the pull "
              "request's merge base (the comment says which night and how many commits before; "
              "\"not checked\", conclusion neutral, when none is); newest - the newest stored "
              "night. Empty - merge-base when the pull request and a token are known."),
        Input("quota-project", TEXT, "",
              "Add the project quota: the project's files on the index now (every file of every "
              "release, from its JSON API), the pull request's wheels, and the headroom under the"
              " project's limit. Empty: no quota."),
        common.QUOTA_LIMIT_GB,
        common.QUOTA_INDEX,
        Input("check-report-path", TEXT, "wheel-size-check.md",
              "Where to write the comment's Markdown, relative to the workspace or absolute "
              "inside it (a .json is written next to it)."),
        Input("bot-login", TEXT, "",
              "Whose sticky comment is the bot's: only a comment by this login is ever edited "
              "(anyone else's carrying the marker is ignored and named in the log). Default: the "
              "login the token writes as (a personal token's user; an App token's APP-SLUG[bot]; "
              "github-actions[bot] for GITHUB_TOKEN); [bot] may be left out; a login the token "
              "does not write as is one error."),
        Input("pr-number", TEXT, "${{ github.event.pull_request.number }}",
              "Pull request that gets the comment (updated in place); empty for none. With "
              "head-sha (a workflow_run job) only a claim, refused unless that pull request's "
              "head is head-sha."),
    ),
)
# fmt: on
