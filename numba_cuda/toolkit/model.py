"""The result of toolkit discovery: one :class:`Toolkit` of :class:`Component`."""

from numba_cuda.common.records import Record
from numba_cuda.errors import ToolkitError

from .layouts import COMPONENTS, DESCRIPTIONS


class Component(Record):
    """Where one toolkit component was found, or why it was not.

    ``source`` is one of ``"conda"``, ``"pip"``, ``"CONDA_PREFIX"``,
    ``"CUDA_HOME"``, ``"CUDA_PATH"``, ``"system"`` (None when not found).
    ``version_from`` says where ``version`` / ``major`` were read from;
    ``loaded_version`` is the version the library itself reports once loaded (NVRTC
    ``13.0``).  ``tried`` lists ``(place, reason)`` for every place that was searched and
    did not provide it.  ``message`` is the full ToolkitError message when the component is
    unusable; ``fix`` the command that installs it here when it is missing.
    """

    def __init__(self, name: str, path: "str | None" = None, source: "str | None" = None,
                 version: "str | None" = None, error: "str | None" = None,
                 major: "int | None" = None, version_from: "str | None" = None,
                 loaded_version: "str | None" = None, tried: "list | None" = None,
                 message: "str | None" = None, fix: "str | None" = None):
        self.name = name
        self.path = path
        self.source = source
        self.version = version
        self.error = error
        self.major = major
        self.version_from = version_from
        self.loaded_version = loaded_version
        self.tried = [] if tried is None else tried
        self.message = message
        self.fix = fix

    @property
    def found(self):
        return self.path is not None and self.error is None

    def to_dict(self):
        return {
            "path": self.path,
            "source": self.source,
            "version": self.version,
            "error": self.error,
            "major": self.major,
            "loaded_version": self.loaded_version,
            "fix": self.fix,
            "tried": [f"{place}: {reason}" for place, reason in self.tried],
        }


class Toolkit(Record):
    """The one CUDA toolkit this process uses.

    ``source`` and ``root`` describe the source that provided libNVVM and
    libdevice and so decided the toolkit; ``cuda_major`` is its CUDA major.
    ``components`` maps names to :class:`Component`; ``warnings`` holds one line per
    problem worth a user's attention (conflicting variables ...); ``environment`` is the
    kind of Python environment (``"conda"``, ``"venv"`` or ``"system"``, for fixes); ``fix``
    the shell command that installs the toolkit's required components here (a missing
    component's own command is its ``fix``: an optional one is in no extra); ``searched``
    the searched sources in order, as text (for explain()); ``skipped`` the labels of the
    sources that were not searched (unset, disabled ...).
    """

    def __init__(self, cuda_major: "int | None" = None, source: "str | None" = None,
                 root: "str | None" = None, components: "dict | None" = None,
                 warnings: "list | None" = None, environment: "str | None" = None,
                 fix: "str | None" = None, searched: "list | None" = None,
                 skipped: "set | None" = None):
        self.cuda_major = cuda_major
        self.source = source
        self.root = root
        self.components = {} if components is None else components
        self.warnings = [] if warnings is None else warnings
        self.environment = environment
        self.fix = fix
        self.searched = [] if searched is None else searched
        self.skipped = set() if skipped is None else skipped

    def require(self, name):
        """The component ``name``; raises ToolkitError with the full story if unusable."""
        if name not in COMPONENTS:
            raise ValueError(f"unknown toolkit component {name!r}; known: {', '.join(COMPONENTS)}")
        comp = self.components.get(name)
        if comp is None or not comp.found:
            message = comp.message if comp is not None and comp.message else (
                f"{DESCRIPTIONS[name]} is not available: "
                f"{comp.error if comp is not None else 'not searched'}")
            exc = ToolkitError(message)
            exc.component = name
            exc.tried = list(comp.tried) if comp is not None else []
            exc.fix = (comp.fix if comp is not None and comp.fix else None) or self.fix
            raise exc
        return comp

    def to_dict(self):
        """The ``toolkit`` object of ``numba-cuda sysinfo --json``."""
        return {
            "cuda_major": self.cuda_major,
            "source": self.source,
            "root": self.root,
            "components": {name: self.components[name].to_dict() for name in COMPONENTS
                           if name in self.components},
            "warnings": list(self.warnings),
            "environment": self.environment,
            "fix": self.fix,
        }

    def explain(self):
        """Human-readable: what was chosen, where each component came from and why."""
        lines = []
        if self.source:
            major = f"CUDA {self.cuda_major}" if self.cuda_major else "CUDA (major unknown)"
            lines.append(f"Toolkit: {major} from {self.source} ({self.root}), the first source "
                         "in the search order with both libNVVM and libdevice.")
        else:
            lines.append("Toolkit: none found (no source has both libNVVM and libdevice).")
        lines.append("Search order: " + "; ".join(self.searched))
        for name in COMPONENTS:
            comp = self.components.get(name)
            if comp is None:
                continue
            if comp.found:
                ver = f", version {comp.version}" if comp.version else ""
                how = f" (from {comp.version_from})" if comp.version_from else ""
                lines.append(f"  {name:<10} {comp.path}  [{comp.source}{ver}{how}]")
            else:
                lines.append(f"  {name:<10} MISSING: {comp.error}")
            for place, reason in comp.tried:
                if place in self.skipped:
                    continue
                lines.append(f"      tried {place}: {reason}")
        for w in self.warnings:
            lines.append(f"Warning: {w}")
        for fix, names in fixes_of(self.components.values()):
            lines.append(f"Fix ({', '.join(names)}): {fix}")
        return "\n".join(lines)


def fixes_of(components):
    """``[(command, [component names])]``: each distinct ``fix`` of the components that have
    one, in order, with the components it installs."""
    grouped = {}
    for comp in components:
        if comp.fix:
            grouped.setdefault(comp.fix, []).append(comp.name)
    return list(grouped.items())
