"""asz's optional compiled modules, used only when they were built from the C source beside them (issue 22).

``setup.py`` builds ``asz_core.verify.linescan`` and ``asz_core.sessiondata.bytescan`` with the SHA-256 of their C
source as ``SOURCE_SHA256``. An editable install (``pip install -e .``, the README's) keeps the module built at
install time: after a ``git pull`` that changes a ``.c`` file, the module no longer holds every function the Python
calls, and a command would fail half-way with ``AttributeError``. :func:`load_compiled` gives ``None`` in that case,
as for an install without a C compiler, so the Python fallback runs (the same results, more slowly), and says once
on stderr how to build it again. An install with no ``.c`` beside the module (a wheel) is not checked.
"""

from __future__ import annotations

import hashlib
import importlib
import sys
from pathlib import Path
from types import ModuleType

__all__ = ["load_compiled"]

_SAID: set[str] = set()


def load_compiled(module: str) -> ModuleType | None:
    """The compiled module ``module`` (a dotted name such as ``"asz_core.sessiondata.bytescan"``), or ``None`` when it
    is not built or was built from another version of its ``.c`` source (one note on stderr then). Never raises."""
    try:
        mod = importlib.import_module(module)
    except ImportError:  # pragma: no cover - an install without a C compiler
        return None
    name = module.rpartition(".")[2]
    source = Path(getattr(mod, "__file__", None) or ".").with_name(name + ".c")
    try:
        digest = hashlib.sha256(source.read_bytes()).hexdigest()
    except OSError:  # no source beside it: an install from a wheel
        return mod
    if getattr(mod, "SOURCE_SHA256", None) == digest:
        return mod
    if module not in _SAID:
        _SAID.add(module)
        print(f"asz: note: {mod.__file__} was built from another version of {source.name}; the Python path is used "
              "instead (the same results, more slowly): run pip install -e . again to build it", file=sys.stderr)
    return None
