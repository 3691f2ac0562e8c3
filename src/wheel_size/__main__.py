"""Allow ``python -m wheel_size``, which tests use to run the checkout under test."""

from wheel_size.cli.main import entrypoint

entrypoint()
