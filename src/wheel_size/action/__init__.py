"""The container Action: the runner's environment in, ``wheel-size track`` out."""
