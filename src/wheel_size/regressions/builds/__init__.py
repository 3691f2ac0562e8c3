"""Per-commit builds (the seed's Method A): sizes at a commit and its parent, and statuses."""
