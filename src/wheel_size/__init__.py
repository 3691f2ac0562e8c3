"""wheel-size-action: track, explain, split and audit the size of PyTorch-ecosystem wheels."""

from wheel_size import interrupts

__version__ = "0.1.0"

# Count Ctrl-C from the first import on, so an interrupt whose KeyboardInterrupt Python drops
# (raised inside a weakref callback during an import) still stops a blocking git call.
interrupts.install()
