"""The result of toolkit discovery: one :class:`Toolkit` of :class:`Component`."""

from dataclasses import dataclass, field

from numba_cuda.errors import ToolkitError

from .layouts import COMPONENTS, DESCRIPTIONS


@dataclass
class Component:
    """Where one toolkit component was found, or why it was not.

    ``source`` is one of ``"conda"``, ``"pip"``, ``"CONDA_PREFIX"``,
    ``"CUDA_HOME"``, ``"CUDA_PATH"``, ``"system"`` (None when not found).
    ``tried`` lists ``(place, reason)`` for every place that was searched and
    did not provide it.
    """

    name: str
    path: "str | None" = None
    source: "str | None" = None
    version: "str | None" = None
    error: "str | None" = None
    major: "int | None" = None
    #: Where ``version`` / ``major`` were read from.
    version_from: "str | None" = None
    #: Version reported by the library itself once loaded (NVRTC ``13.0``).
    loaded_version: "str | None" = None
    tried: list = field(default_factory=list)
    #: The full ToolkitError message when the component is unusable.
    message: "str | None" = None
    #: The command that installs this component here, when it is missing.
    fix: "str | None" = None

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


@dataclass
class Toolkit:
    """The one CUDA toolkit this process uses.

    ``source`` and ``root`` describe the source that provided libNVVM and
    libdevice and so decided the toolkit; ``cuda_major`` is its CUDA major.
    """

    cuda_major: "int | None" = None
    source: "str | None" = None
    root: "str | None" = None
    components: dict = field(default_factory=dict)
    #: One line per problem worth a user's attention (conflicting variables ...).
    warnings: list = field(default_factory=list)
    #: "conda", "venv" or "system": the kind of Python environment, for fixes.
    environment: "str | None" = None
    #: The shell command that installs the toolkit's required components here (a missing
    #: component's own command is its ``fix``: an optional one is in no extra).
    fix: "str | None" = None
    #: The searched sources in order, as text (for explain()).
    searched: list = field(default_factory=list)
    #: Labels of the sources that were not searched (unset, disabled ...).
    skipped: set = field(default_factory=set)

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
