"""The split action's inputs (``split/action.yml``).

One entry per input, in the order ``action.yml`` lists them: ``action.yml``, the catalog,
the parser's defaults and the README tables come from here (``scripts/gen_action_docs.py``).
"""

from __future__ import annotations

from wheel_size.action.inputs import FLAG, INTEGER, LINES, TEXT, WORDS, ActionSpec, Input

__all__ = ["SPLIT"]

# fmt: off
SPLIT = ActionSpec(
    "split", "split", "split action",
    (
        Input("github-token", TEXT, "${{ github.token }}",
              "Token that posts the savings comment (`pull-requests: write`); nothing else is "
              "read."),
        Input("split-input", TEXT, "",
              "The fat wheel(s) to split: paths or globs relative to the workspace or absolute "
              "inside it (dist/*.whl, or the same under github.workspace), or an unpacked wheel "
              "directory. Required."),
        Input("split-output-dir", TEXT, "wheel-size-split",
              "Workspace directory that receives one folder of wheels per input wheel, with its "
              "report (<wheel>.split.md/.json)."),
        Input("device-package-prefix", TEXT, "amd-torch-device",
              "Distribution-name prefix of the device wheels."),
        Input("overlay-root", TEXT, "torch/",
              "Folder inside the wheel that receives .kpack/ and against which paths are taken."),
        Input("wheel-type", TEXT, "torch-fat",
              "Preset of database handlers (torch-fat = rocblas, hipblaslt, hipsparselt, "
              "aotriton, miopen); empty for none.", empty_is_value=True),
        Input("databases", WORDS, "",
              "Explicit database handlers instead of wheel-type (space or comma separated)."),
        Input("output-format", TEXT, "wheel",
              "Wheel or directory (unpacked trees)."),
        Input("compression", TEXT, "zstd",
              "Kpack compression, zstd or none."),
        Input("compression-level", INTEGER, "3",
              "Zstd level of the kpack archives."),
        Input("jobs", INTEGER, "",
              "Worker processes; empty means one per idle core (the CPUs less those busy now, at "
              "least one)."),
        Input("extra-naming", TEXT, "plain",
              "Host extras named plain (torch[gfx1100], torch[all]) or device "
              "(torch[device-gfx1100])."),
        Input("host-installs", TEXT, "extras",
              "What a plain `pip install` of the host wheel installs. extras (default) - the host"
              " only, kernels come with the per-GPU extras; all - every device wheel too, for an "
              "index that must stay backwards compatible."),
        Input("device-requires-dist", LINES, "",
              "Extra Requires-Dist lines of the device wheels, one per line; @GFXARCH@ becomes "
              "the target."),
        Input("generate-variant-wheel", FLAG, "false",
              "Also write a PEP 825 variant wheel."),
        Input("variant-label", TEXT, "variant",
              "Label of the variant wheel."),
        Input("repository", TEXT, "${{ github.repository }}",
              "Repository of the pull request that gets the comment, OWNER/NAME."),
        Input("bot-login", TEXT, "",
              "Whose sticky comment is the bot's: only a comment by this login is ever edited "
              "(anyone else's carrying the marker is ignored and named in the log). Default: the "
              "login the token writes as (a personal token's user; an App token's APP-SLUG[bot]; "
              "github-actions[bot] for GITHUB_TOKEN); [bot] may be left out; a login the token "
              "does not write as is one error."),
        Input("pr-number", TEXT, "${{ github.event.pull_request.number }}",
              "Pull request that gets the comment (updated in place); empty for none."),
        Input("split-comment", FLAG, "true",
              "Post the savings comment on pr-number (needs pull-requests or issues write)."),
    ),
)
# fmt: on
