"""The ``numba-cuda`` command (also ``python -m numba_cuda``).

Subcommands are listed in :data:`COMMANDS` as ``name -> module``; each module
provides ``HELP`` (one line), ``add_arguments(parser)`` and ``run(args) ->
int`` and is only imported when its subcommand runs (or for ``--help``).
"""

import argparse
import importlib
import sys

#: Subcommand name -> module implementing it.
COMMANDS = {
    "sysinfo": "numba_cuda.sysinfo",
    "demo": "numba_cuda.demo",
}


def _parser():
    from numba_cuda import __version__

    parser = argparse.ArgumentParser(prog="numba-cuda",
                                     description="numba-cuda: the CUDA target for Numba")
    parser.add_argument("--version", action="version", version=f"numba-cuda {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, modname in COMMANDS.items():
        module = importlib.import_module(modname)
        p = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
        p.set_defaults(_module=module)
    return parser


def main(argv=None):
    """Entry point; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    module = getattr(args, "_module", None)
    if module is None:
        parser.print_help()
        return 2
    try:
        return int(module.run(args) or 0)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # noqa: BLE001 - one line, never a traceback
        first = (str(exc).strip().splitlines() or [""])[0]
        print(f"numba-cuda {args.command}: error: {type(exc).__name__}: {first}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
