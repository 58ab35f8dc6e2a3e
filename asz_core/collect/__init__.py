"""Collection: the pipeline stage that lands what is new in the sources as Session Data.

Modules, in the order a pass uses them:

- :mod:`.windows`: a source read in windows of complete lines; the tail digest.
- :mod:`.collector`: :class:`Collector` (one adapter's pass: cursors, cutting, landing, locks),
  :func:`run_passes` (every adapter together, session by session), :func:`landing_rank`.
- :mod:`.parallel`: sessions landed in forked workers (``--jobs``), on :mod:`.workers`.
- :mod:`.report`: the pass's :class:`Counters` and :class:`Report` (the summary line).
- :mod:`.provider_bodies`: the provider-body pass (seed 000, Provider bodies).

The names below are the stage's public API (origin-digest §2, §4.1), each imported from its module when first asked
for: importing one module of the package (``asz verify`` takes the worker pool of :mod:`.workers`) does not load the
collector (issue 22: the command's start).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__all__ = ["SUMMARY_KEYS", "CollectOptions", "Collector", "Counters", "Report", "land_session", "landing_rank", "run_passes"]

#: Where each public name is defined.
_FROM = {"CollectOptions": "collector", "Collector": "collector", "land_session": "collector", "landing_rank": "collector",
         "run_passes": "collector", "SUMMARY_KEYS": "report", "Counters": "report", "Report": "report"}


def __getattr__(name: str) -> Any:
    """A public name of the stage, imported from its module (PEP 562); AttributeError for any other."""
    if name not in _FROM:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{_FROM[name]}"), name)
    globals()[name] = value
    return value
