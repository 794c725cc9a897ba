"""Running a Python snippet in a fresh interpreter, for tests of what happens at import or
on first use (registration, lazy imports) that an already-warm test process cannot show."""

import os
import subprocess
import sys
import textwrap


def run_python(code, env=None, timeout=120):
    """Run the (dedented) ``code`` with ``python -c``; the completed process, output as text."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True, text=True, env=full_env, timeout=timeout,
    )
