"""Explain a size change between two wheels: files, ELF sections, GPU architectures."""
