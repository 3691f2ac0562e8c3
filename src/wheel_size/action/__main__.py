"""``python -m wheel_size.action``: the container action's job on any runner.

The reusable workflow installs the package with pip and runs this with the same INPUT_*
variables the container would get, so both paths share outputs, summary and annotations.
"""

import sys

from wheel_size.action.main import main

if __name__ == "__main__":
    sys.exit(main())
