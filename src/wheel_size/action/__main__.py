"""``python -m wheel_size.action [check|split|audit]``: the container actions' jobs on any
runner.

The reusable workflow installs the package with pip and runs this with the same INPUT_*
variables the container would get, so both paths share outputs, summary and annotations.
"""

import sys

from wheel_size.action.main import main

if __name__ == "__main__":
    sys.exit(main(argv=sys.argv[1:]))
