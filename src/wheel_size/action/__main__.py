"""``python -m wheel_size.action [check|split|audit]``: the container actions' jobs on any
runner.

The reusable workflow installs the package with pip and runs this with the same INPUT_*
variables the container would get, so both paths share outputs, summary and annotations.
"""

import sys

if __name__ == "__main__":
    try:  # an interrupt while the modules load is one line too, not a traceback
        from wheel_size.action.main import main

        status = main(argv=sys.argv[1:])
    except KeyboardInterrupt:
        print("::error title=wheel-size::interrupted (SIGINT) while starting", flush=True)
        status = 130
    sys.exit(status)
