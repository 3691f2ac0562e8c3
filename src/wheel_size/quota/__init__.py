"""The project quota on a package index (``audit`` and ``check`` both add it)."""
