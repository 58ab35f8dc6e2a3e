"""Collection: the pipeline stage that lands what is new in the sources as Session Data.

Modules, in the order a pass uses them:

- :mod:`.windows`: a source read in windows of complete lines; the tail digest.
- :mod:`.collector`: :class:`Collector` (one adapter's pass: cursors, cutting, landing, locks),
  :func:`run_passes` (every adapter together, session by session), :func:`landing_rank`.
- :mod:`.parallel`: sessions landed in forked workers (``--jobs``), on :mod:`.workers`.
- :mod:`.report`: the pass's :class:`Counters` and :class:`Report` (the summary line).
- :mod:`.provider_bodies`: the provider-body pass (seed 000, Provider bodies).

The names below are the stage's public API (origin-digest §2, §4.1).
"""

from __future__ import annotations

from .collector import CollectOptions, Collector, land_session, landing_rank, run_passes
from .report import SUMMARY_KEYS, Counters, Report

__all__ = ["SUMMARY_KEYS", "CollectOptions", "Collector", "Counters", "Report", "land_session", "landing_rank", "run_passes"]
