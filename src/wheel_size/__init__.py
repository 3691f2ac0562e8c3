"""wheel-size-action: track, explain, split and audit the size of PyTorch-ecosystem wheels."""

__version__ = "0.1.0"
