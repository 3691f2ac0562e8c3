"""The pull-request size check: a PR's wheels against the newest stored nightly of its base."""
