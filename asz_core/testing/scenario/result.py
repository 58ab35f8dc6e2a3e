"""What a scenario check found: :class:`CheckResult` (one scenario) and :class:`Judge` (one format's tally).

Every check of :mod:`.check` and :mod:`.properties` reports through a
:class:`Judge`, which counts a pass or appends one failure line
(``SCENARIO [FORMAT] WHERE: MESSAGE``) to the shared :class:`CheckResult`.
"""

from __future__ import annotations

import attrs

__all__ = ["CheckResult", "Judge"]


@attrs.define
class CheckResult:
    """Outcome of checking one scenario: ``failures`` and ``skips`` (one line each), ``passed`` checks
    counted, per-format status in ``formats`` (``pass``/``fail``/``skipped``, with reasons)."""

    scenario: str
    failures: list[str] = attrs.Factory(list)
    skips: list[str] = attrs.Factory(list)
    passed: int = 0
    formats: dict = attrs.Factory(dict)

    @property
    def ok(self) -> bool:
        """True when no check failed."""
        return not self.failures

    def lines(self) -> list[str]:
        """Skips first (``skipped: …``), then failures (``FAIL …``), then a summary line."""
        tail = f"{'ok' if self.ok else 'FAIL'} {self.scenario}: {self.passed} checks passed, {len(self.failures)} failed, {len(self.skips)} skipped"
        return [f"skipped: {s}" for s in self.skips] + [f"FAIL {f}" for f in self.failures] + [tail]


class Judge:
    """One format's checks of a scenario: :meth:`ok` counts a pass or records a failure, :meth:`skip` says a skip once.

    ``fmt`` is the format's name (``claude-code``, ``sd``, ``both``, or ''
    for the scenario as a whole); ``failed`` counts this judge's failures.
    """

    def __init__(self, res: CheckResult, fmt: str):
        self.res = res
        self.fmt = fmt
        self.failed = 0

    def ok(self, cond: bool, where: str, message: str) -> bool:
        """Count ``cond`` as a pass, or append ``SCENARIO [FMT] WHERE: MESSAGE`` to the failures; returns ``cond``."""
        if cond:
            self.res.passed += 1
        else:
            self.failed += 1
            self.res.failures.append(f"{self.res.scenario} [{self.fmt}] {where}: {message}")
        return cond

    def skip(self, message: str) -> None:
        """Append ``SCENARIO [FMT] MESSAGE`` to the skips, unless it is there already."""
        line = f"{self.res.scenario} [{self.fmt}] {message}" if self.fmt else f"{self.res.scenario}: {message}"
        if line not in self.res.skips:
            self.res.skips.append(line)
