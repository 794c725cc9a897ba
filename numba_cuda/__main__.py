"""``python -m numba_cuda``: the ``numba-cuda`` command."""

import sys

from numba_cuda.cli import main

sys.exit(main())
