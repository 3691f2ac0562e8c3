"""Down to the kernel: functions and kernels of every GPU code object and host library,
demangled, grouped into template families, compared and searched for bloat."""
