"""NVIDIA CUDA device code inside host libraries."""
