"""``numba-cuda sysinfo``: what CUDA target, toolkit, driver and GPUs this process sees.

A diagnostic for users and bug reports: it always exits 0 and never prints a
traceback; anything that goes wrong while collecting a section is reported
as a one-line error inside the report.

``--json`` prints one object::

    {"target": "numba-cuda" | "numba-builtin",   # what `numba.cuda` resolves to
     "version": str,                              # that target's version
     "redirected": bool,                          # numba.cuda is numba_cuda
     "implementation": str|null,                  # numba.cuda.implementation
     "simulator": bool,                           # NUMBA_ENABLE_CUDASIM is on: kernels run
                                                  # in the simulator, not on a GPU
     "python": str, "executable": str, "platform": str,
     "packages": {"numba": str|null, "llvmlite": ..., "numpy": ...,
                  "cuda-bindings": ..., "cuda-core": ..., "cuda-pathfinder": ...},
     "toolkit": {"cuda_major": int|null, "source": str|null, "root": str|null,
                 "components": {"nvvm"|"libdevice"|"nvrtc"|"cudart"|"nvjitlink"|"include"|"ptxas"|"nvdisasm":
                                {"path": str|null, "source": str|null, "version": str|null,
                                 "error": str|null, "major": int|null,
                                 "loaded_version": str|null, "tried": [str]}},
                 "warnings": [str], "environment": "conda"|"venv"|"system", "fix": str|null},
     "driver": {"version": str|null, "error": str|null},
     "devices": [{"id", "name", "compute_capability", "uuid", "total_memory", "supported"}],
     "warnings": [str], "errors": [str]}

``source`` is one of ``conda``, ``pip``, ``CONDA_PREFIX``, ``CUDA_HOME``,
``CUDA_PATH``, ``system``.  ``--explain`` adds, to the table, every place
searched for each component and why it did not qualify.  ``--no-load`` skips loading NVVM / NVRTC /
nvJitLink (by default they are loaded to check they work and to read the
version they report).  Files are checked before anything loads them
(:mod:`numba_cuda.toolkit.validation`: truncated or foreign libraries, an
empty or damaged libdevice), and the first loads -- libNVVM compiling a call
into libdevice included -- happen in a child process, so that a library that
crashes the process loading it is reported by name instead of killing the
report.
"""

import json
import platform
import sys
import warnings

HELP = "report the CUDA target, toolkit components, driver and GPUs"

PACKAGES = ("numba", "llvmlite", "numpy", "cuda-bindings", "cuda-core", "cuda-pathfinder")


def add_arguments(parser):
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--explain", action="store_true",
                        help="also list every place searched for each toolkit component")
    parser.add_argument("--no-load", action="store_true",
                        help="do not load NVVM/NVRTC/nvJitLink to check them")


def _one_line(exc):
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")


def _package_versions():
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for name in PACKAGES:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out


def _target(report):
    import importlib

    import numba_cuda

    report["target"] = "numba-builtin"
    report["version"] = None
    report["redirected"] = False
    try:
        module = importlib.import_module("numba.cuda")
    except Exception as exc:  # noqa: BLE001
        report["errors"].append(f"import numba.cuda failed: {_one_line(exc)}")
        return
    report["implementation"] = getattr(module, "implementation", None)
    if module is numba_cuda:
        report.update(target="numba-cuda", version=numba_cuda.__version__, redirected=True,
                      simulator=bool(numba_cuda.USE_SIMULATOR))
    else:
        import numba

        report["version"] = getattr(numba, "__version__", None)
        # Numba's built-in target reads the same variable (numba.core.config).
        from numba.core import config

        report["simulator"] = bool(getattr(config, "ENABLE_CUDASIM", False))


#: Run in a child process: loads each library named on the command line (then libdevice
#: through libNVVM), printing a line before and after each step, so that a library that
#: crashes the process (SIGBUS, SIGABRT) is known by the step the child died in.
_PROBE = """
import sys
from numba_cuda import toolkit
ok = set()
for name in sys.argv[1:]:
    print("LOAD", name, flush=True)
    try:
        toolkit.load_library(name)
    except Exception:
        print("ERR", name, flush=True)
    else:
        ok.add(name)
        print("OK", name, flush=True)
if "nvvm" in ok:
    print("LOAD libdevice", flush=True)
    try:
        from numba_cuda.compiler import nvvm, nvvmir
        text = nvvmir.empty_module_text() + (
            "\\ndeclare float @__nv_sinf(float)\\n"
            "define float @numba_cuda_probe(float %x) {\\n"
            "  %r = call float @__nv_sinf(float %x)\\n  ret float %r\\n}\\n")
        nvvm.compile_ir([("probe", text)], "compute_75")
    except Exception:
        print("ERR libdevice", flush=True)
    else:
        print("OK libdevice", flush=True)
"""

PROBE_TIMEOUT = 120


def _probe_loads(names):
    """{name: problem} for the libraries (and ``libdevice``) that crashed a child process
    loading them; the in-process loads then skip those."""
    import signal
    import subprocess

    try:
        proc = subprocess.run([sys.executable, "-c", _PROBE, *names], capture_output=True,
                              text=True, timeout=PROBE_TIMEOUT)
    except subprocess.TimeoutExpired as exc:
        out, why = exc.stdout or "", f"did not finish loading in {PROBE_TIMEOUT} s"
        if isinstance(out, bytes):
            out = out.decode("utf-8", "replace")
    except OSError as exc:
        return {"_probe": f"the load check could not start a child process ({exc})"}
    else:
        out = proc.stdout
        if proc.returncode >= 0:
            return {}
        try:
            sig = signal.Signals(-proc.returncode).name
        except ValueError:
            sig = f"signal {-proc.returncode}"
        why = (f"crashed the process that loaded it ({sig}): the file is damaged (truncated "
               "or corrupt?); reinstall the package that provides it")
    started = [line.split()[1] for line in out.splitlines() if line.startswith("LOAD ")]
    finished = {line.split()[1] for line in out.splitlines() if line.startswith(("OK ", "ERR "))}
    culprit = next((n for n in reversed(started) if n not in finished), None)
    return {culprit: why} if culprit else {"_probe": f"the load check {why}"}


def _toolkit(report, load):
    from numba_cuda import toolkit
    from numba_cuda.toolkit.validation import bitcode_problem

    tk = toolkit.get_toolkit()
    problems = {}
    ld = tk.components.get("libdevice")
    if ld is not None and ld.found:
        bad = bitcode_problem(ld.path)
        if bad:
            problems["libdevice"] = f"found, but {bad}; reinstall it"
    if load:
        names = [n for n in ("nvvm", "nvrtc", "nvjitlink")
                 if tk.components.get(n) is not None and tk.components[n].found]
        crashed = _probe_loads(names) if names else {}
        if "_probe" in crashed:
            report["warnings"].append(crashed.pop("_probe"))
        for name, why in crashed.items():
            problems[name] = f"found, but {why}"
        for name in names:
            if name in crashed:
                continue
            try:
                toolkit.load_library(name)
            except Exception as exc:  # noqa: BLE001 - reported, not raised
                problems[name] = ("found, but could not be used: "
                                  + _one_line(exc).split(": ", 1)[-1])
    report["toolkit"] = tk.to_dict()
    if problems:
        from numba_cuda.toolkit.discovery import reinstall_command

    for name, problem in problems.items():
        entry = report["toolkit"]["components"][name]
        entry["error"] = problem
        try:
            entry["fix"] = reinstall_command(tk.components[name])
        except Exception as exc:  # noqa: BLE001 - the report never fails
            entry["fix"] = f"reinstall the package that provides {entry['path']} ({_one_line(exc)})"
    report["toolkit_explanation"] = tk.explain()


def _driver(report):
    try:
        from numba_cuda.runtime import probe
    except Exception as exc:  # noqa: BLE001
        report["driver"] = {"version": None,
                            "error": f"driver probe unavailable ({_one_line(exc)})"}
        return
    report["driver"] = probe.probe_driver()
    report["devices"] = probe.probe_devices()


def collect(load=True):
    """The whole report as a dict (the ``--json`` object).  Never raises."""
    report = {
        "target": None, "version": None, "redirected": False,
        "implementation": None, "simulator": False,
        "python": sys.version.split()[0], "executable": sys.executable,
        "platform": f"{platform.system()}-{platform.machine()}",
        "packages": {},
        "toolkit": {"cuda_major": None, "source": None, "root": None, "components": {},
                    "warnings": [], "environment": None, "fix": None},
        "driver": {"version": None, "error": "not probed"},
        "devices": [],
        "warnings": [],
        "errors": [],
    }
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for section, run in (("packages", lambda: report.update(packages=_package_versions())),
                             ("target", lambda: _target(report)),
                             ("toolkit", lambda: _toolkit(report, load)),
                             ("driver", lambda: _driver(report))):
            try:
                run()
            except BaseException as exc:  # noqa: BLE001 - a diagnostic reports, never raises
                if isinstance(exc, KeyboardInterrupt):
                    raise
                report["errors"].append(f"{section}: {_one_line(exc)}")
    for w in caught:
        text = str(w.message).strip()
        if text and text not in report["warnings"]:
            report["warnings"].append(text)
    return report


def _dash(value):
    return "-" if value in (None, "") else str(value)


def render(report):
    """The readable table."""
    lines = []
    pk = report.get("packages") or {}
    redirected = "yes" if report.get("redirected") else "no"
    rows = [
        ("CUDA target", f"{_dash(report.get('target'))} {_dash(report.get('version'))}"
                        f"  (numba.cuda -> numba_cuda: {redirected})"),
        ("Simulator", "ACTIVE (NUMBA_ENABLE_CUDASIM=1): kernels run in the Python simulator, "
                      "not on a GPU; the toolkit and driver below are not used"
                      if report.get("simulator") else "off"),
        ("Python", f"{report.get('python')}  {report.get('executable')}"),
        ("Platform", report.get("platform")),
    ]
    rows += [(name, _dash(pk.get(name))) for name in PACKAGES]
    width = max(len(k) for k, _v in rows)
    lines.append("numba-cuda sysinfo")
    lines.append("")
    lines += [f"  {k:<{width}}  {v}" for k, v in rows]

    tk = report.get("toolkit") or {}
    lines.append("")
    if tk.get("source"):
        lines.append(f"CUDA toolkit: CUDA {_dash(tk.get('cuda_major'))} from {tk['source']} "
                     f"({tk.get('root')})")
    else:
        lines.append("CUDA toolkit: not found")
    comps = tk.get("components") or {}
    table = [("component", "version", "source", "path / problem")]
    for name, c in comps.items():
        if c.get("error"):
            where = f"MISSING: {c['error']}" if not c.get("path") else f"{c['path']}  ({c['error']})"
        else:
            where = c.get("path")
        version = c.get("version") or c.get("loaded_version")
        table.append((name, _dash(version), _dash(c.get("source")), _dash(where)))
    w0 = max(len(r[0]) for r in table)
    w1 = max(len(r[1]) for r in table)
    w2 = max(len(r[2]) for r in table)
    for r in table:
        lines.append(f"  {r[0]:<{w0}}  {r[1]:<{w1}}  {r[2]:<{w2}}  {r[3]}")
    # one line per distinct command, naming what it installs (an optional component's own
    # package is in no extra; a damaged file's is reinstalled)
    fixes = {}
    for name, c in comps.items():
        if c.get("error"):
            fixes.setdefault(c.get("fix") or tk.get("fix"), []).append(name)
    fixes.pop(None, None)
    for fix, names in fixes.items():
        lines.append(f"  fix ({', '.join(names)}): {fix}")
    if fixes:
        lines.append("  (`numba-cuda sysinfo --explain` lists every place searched)")

    drv = report.get("driver") or {}
    lines.append("")
    if drv.get("version"):
        lines.append(f"Driver: CUDA {drv['version']}")
    else:
        lines.append(f"Driver: not available ({_dash(drv.get('error'))})")
    devices = report.get("devices") or []
    if devices:
        lines.append("GPUs:")
        for d in devices:
            extra = "" if d.get("supported", True) else "  (not supported by this toolkit)"
            err = f"  error: {d['error']}" if d.get("error") else ""
            lines.append(f"  [{d.get('id')}] {_dash(d.get('name'))}  compute capability "
                         f"{_dash(d.get('compute_capability'))}  {_dash(d.get('uuid'))}{extra}{err}")
    else:
        lines.append("GPUs: none")

    for title, key in (("Warnings", "warnings"), ("Errors while collecting", "errors")):
        items = list(report.get(key) or [])
        if key == "warnings":
            items = [w for w in (tk.get("warnings") or []) if w not in items] + items
        if items:
            lines.append("")
            lines.append(f"{title}:")
            lines += [f"  - {i}" for i in items]
    return "\n".join(lines)


def run(args):
    """Print the report; always returns 0."""
    try:
        report = collect(load=not getattr(args, "no_load", False))
    except BaseException as exc:  # noqa: BLE001
        if isinstance(exc, KeyboardInterrupt):
            raise
        report = {"target": None, "version": None, "redirected": False,
                  "errors": [f"sysinfo failed: {_one_line(exc)}"]}
    try:
        if getattr(args, "json", False):
            report = dict(report)
            report.pop("toolkit_explanation", None)
            text = json.dumps(report, indent=2, default=str)
        else:
            text = render(report)
            if getattr(args, "explain", False) and report.get("toolkit_explanation"):
                text += "\n\n" + report["toolkit_explanation"]
    except Exception as exc:  # noqa: BLE001
        text = json.dumps({"errors": [f"sysinfo could not format its report: {_one_line(exc)}"]})
    print(text)
    sys.stdout.flush()
    return 0
