"""The inputs several actions declare with the same default and description."""

from __future__ import annotations

from wheel_size.action.inputs import MEGABYTES, TEXT, WORDS, Input, Number

# fmt: off

PYTHON = Input("python", TEXT, "py3_12",
               "Python tag in the artifact names (py3_12, 3.12, cp312).")

ARTIFACT_PATTERN = Input("artifact-pattern", TEXT, "manywheel-{python}-{variant}",
                         "Artifact name pattern with {variant} and optionally {python}.")

DATA_REMOTE = Input("data-remote", TEXT, "",
                    "Git URL of the history instead of this repository (the token is not added to"
                    " it).")

CEILING_MB = Input("ceiling-mb", MEGABYTES, "",
                   "Size in MB no wheel may exceed (a project limit such as 850); empty for none.")

CEILINGS = Input("ceilings", WORDS, "",
                 "Per-variant ceilings as VARIANT=MB, separated by spaces, commas or newlines "
                 "(cuda12_8=850).")

PYPI_LIMIT_MB = Input("pypi-limit-mb", MEGABYTES, "",
                      "PyPI's file-size limit for the project (100 MB unless PyPI raised it); "
                      "empty for none.")

QUOTA_LIMIT_GB = Input("quota-limit-gb", Number("GB"), "",
                       "The project's limit on the index in GiB (PyPI's default is 10; a project "
                       "PyPI raised has its own). Empty: 10.")

QUOTA_INDEX = Input("quota-index", TEXT, "https://pypi.org",
                    "The index whose JSON API (`/pypi/<project>/json`) holds the project's files.")
# fmt: on
