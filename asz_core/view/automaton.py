"""Aho–Corasick automata (``ahocorasick_rs``) whose Rust code no thread is in while the interpreter finalizes.

``ahocorasick_rs`` builds an automaton and searches a text with the GIL let go (pyo3's ``allow_threads``). When a
command returns while a daemon thread is in such a call (``asz view``'s warm-up thread importing
:mod:`~asz_core.view.secret_forms`, whose automata are built as it imports; a page's fold ahead masking its headings),
CPython finalizes; the thread, asking for the GIL back, is ended with ``pthread_exit``, whose unwinding cannot pass the
Rust frames, and glibc aborts the process: ``asz view`` stopped by a SIGINT right after ``listening:`` said
``stopped`` and died by SIGABRT, exit -6 (session 44's full run; fix45b's core dump: ``take_gil`` →
``PyThread_exit_thread`` → ``__pthread_unwind`` → ``abort`` under ``aho_corasick::…::Compiler::build_trie``, the
warm-up importing ``secret_forms``).

Every build and search goes through :data:`_GATE`, one lock held only while the Rust code runs (a microsecond for a
short text; :func:`either` takes it once for two searches). It costs 0.4 µs a short text: ``python
bench/secrets_find.py --before TREE --cut 80`` ×1.147 (0.254 → 0.292 s CPU, the corpus cut into 103,219 texts), ×0.998
over its 3,140 whole lines (docs/performance.md, session 45). An :mod:`atexit` hook, run before finalization
begins, takes it for good: a call in flight returns first, and another thread that comes later waits on the lock (C
code, no Rust frames) until the process ends; the thread that took it (the main thread, exiting: a later exit hook
of its own may still mask a text) goes on, as the lock is reentrant. A forked child starts with the gate open
(:func:`os.register_at_fork`): a thread of the parent may have held it at the fork.
"""

from __future__ import annotations

import atexit
import os
import threading
from typing import Iterable

import ahocorasick_rs

__all__ = ["Automaton", "either", "close_gate"]

#: Held while a thread is in ``ahocorasick_rs``' Rust code; taken for good as Python exits (:func:`close_gate`).
#: Reentrant: the thread that closed it may still build and search.
_GATE = threading.RLock()


class Automaton:
    """An ``ahocorasick_rs.AhoCorasick`` of ``patterns`` (strings), built and searched through :data:`_GATE`."""

    __slots__ = ("_ac",)

    def __init__(self, patterns: Iterable[str]) -> None:
        patterns = list(patterns)
        with _GATE:
            self._ac = ahocorasick_rs.AhoCorasick(patterns)

    def find(self, text: str, overlapping: bool = False) -> list[tuple[int, int, int]]:
        """``(pattern index, start, end)`` of each match in ``text`` (offsets in code points), by start
        (``find_matches_as_indexes``); ``overlapping``: every match, not only the leftmost of those that overlap."""
        with _GATE:
            return self._ac.find_matches_as_indexes(text, overlapping=overlapping)


def either(first: Automaton, text: str, second: Automaton, other: str) -> bool:
    """Whether ``first`` finds a match in ``text`` or ``second`` one in ``other``: the gate taken once for both (a
    hot path's: :func:`~asz_core.view.secret_forms.find` asks it of each of 400,000 short texts of a long talk)."""
    with _GATE:
        return bool(first._ac.find_matches_as_indexes(text) or second._ac.find_matches_as_indexes(other))


def close_gate() -> None:
    """Wait for a build or search in flight, then let no other begin (registered with :mod:`atexit`: it runs before
    the interpreter finalizes, while every thread can still take the GIL back)."""
    _GATE.acquire()


def _open_in_child() -> None:
    global _GATE
    _GATE = threading.RLock()


atexit.register(close_gate)
os.register_at_fork(after_in_child=_open_in_child)
