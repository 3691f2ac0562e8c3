"""Allow ``python -m wheel_size``, which tests use to run the checkout under test."""

from wheel_size.cli.main import entrypoint

# The guard keeps worker processes that re-import the main module from running the CLI.
if __name__ == "__main__":
    entrypoint()
