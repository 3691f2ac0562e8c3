"""Collection: workflow runs and their artifact sizes from the GitHub Actions API.

github = wheel_size.github.port.PyGithubPort(wheel_size.github.client.connect())
runs = collect(github, WorkflowSource("pytorch/pytorch", "21257348", "nightly"), first, last)
"""

from wheel_size.collect.records import collect, record_from_api
from wheel_size.collect.runs import RESULT_CAP, Window, WorkflowSource, list_runs

__all__ = ["RESULT_CAP", "Window", "WorkflowSource", "collect", "list_runs", "record_from_api"]
