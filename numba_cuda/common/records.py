"""``Record`` and ``FrozenRecord``: base classes for plain value classes with named fields.

They give what ``@dataclass`` would give the classes of the compile path (``KernelImage``,
``JitOptions``, ``CompileOptions``, the toolkit's ``Component`` and ``Toolkit`` ...): a
``ClassName(field=value, ...)`` repr, equality field by field, and for ``FrozenRecord`` a hash
and no assignment after ``__init__`` (``dataclasses.FrozenInstanceError``, an
``AttributeError``).  A subclass writes its own ``__init__``; its parameters, in order, are the
fields (``FIELDS``).

Why not ``@dataclass``: making a dataclass costs 0.6-1.8 ms per class (its field processing
and the code it generates and compiles), paid by every process at its first compile, where
these classes are first imported; a plain class costs a few microseconds.  Instances are
ordinary objects with a ``__dict__`` (they pickle and copy as dataclass instances do).
"""


class Record:
    """A mutable value class: repr and ``==`` over ``FIELDS`` (unhashable, as a dataclass)."""

    #: the field names: the parameters of the class's ``__init__``, in order
    FIELDS = ()
    __hash__ = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        init = vars(cls).get("__init__")
        if init is not None:
            code = init.__code__
            cls.FIELDS = code.co_varnames[1:code.co_argcount]

    def _values(self):
        return tuple(getattr(self, name) for name in self.FIELDS)

    def __repr__(self):
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.FIELDS)
        return f"{type(self).__qualname__}({inner})"

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()


class FrozenRecord(Record):
    """An immutable, hashable value class: ``__init__`` sets the fields in the instance's
    ``__dict__`` (``vars(self).update(...)``); any assignment or deletion raises
    ``dataclasses.FrozenInstanceError``."""

    def __hash__(self):
        return hash(self._values())

    def __setattr__(self, name, value):
        raise _frozen(self, name)

    def __delattr__(self, name):
        raise _frozen(self, name)


def _frozen(record, name):
    from dataclasses import FrozenInstanceError

    return FrozenInstanceError(f"cannot assign to field {name!r} of {type(record).__name__}")
