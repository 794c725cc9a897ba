"""The one reader of on/off environment variables, with one rule (docs/user/environment-variables.rst):

* unset, or set to the empty string (or only blanks): the variable's default;
* ``0``, ``false``, ``no`` or ``off`` (any case, blanks around ignored): off;
* anything else (``1``, ``true``, ``yes``, ``on`` ...): on.

``_numba_cuda_redirector`` (outside the package: it must not import it when Python starts)
keeps a copy of these few lines; a test checks that both answer alike.
"""

import os

#: The values that turn a flag off (compared lower-cased, without surrounding blanks).
OFF_WORDS = ("0", "false", "no", "off")


def flag_value(raw, default):
    """``raw`` (a variable's value, or None when unset) read by the rule above."""
    if raw is None:
        return default
    text = raw.strip().lower()
    if not text:
        return default
    return text not in OFF_WORDS


def env_flag(name, default=False, environ=None):
    """The on/off environment variable ``name`` (from ``environ``, default ``os.environ``)."""
    return flag_value((os.environ if environ is None else environ).get(name), default)
