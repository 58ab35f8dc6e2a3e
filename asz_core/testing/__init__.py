"""The adapter conformance kit: the contract every adapter, built-in or third-party, is held to.

A third-party adapter pulls it in with about three lines::

    from asz_core.testing import AdapterConformance
    from asz_adapter_codex.plugin import CodexAdapter

    class TestCodexConformance(AdapterConformance):
        adapter_class = CodexAdapter
        samples = Path(__file__).parent.parent / "samples"   # a source root with sample sessions

The mixin's name does not start with ``Test``, so pytest never collects it on
its own. The checks run the adapter through a real collect
(:class:`asz_core.collect.Collector`) into a temporary storage root: those that
only read the samples, the landed root, its parse or its documents share one copy
and one collect pass, parsed, per test class (the ``samples_source`` and
``samples_root`` fixtures, :class:`~asz_core.testing.landing.SamplesRoot`); those
that change them (appending, a second pass, two processes) make their own. Which
checks apply is decided by the adapter's declared
:class:`~asz_core.Capabilities`, never by its name.

Checks (issues 9 and 19): the adapter class implements every required method
(``Adapter`` is an abstract base class); every landed file verifies; every
complete source line of an append source, and every document, is one record
with ord/off/bytes/sha; no record leaves its line's bytes unaccounted for (each
piece of content of the line is in a part, under a member a dropped entry names,
in an unknown part, or under a member ``unaccounted_members`` lists with the
reason: :mod:`asz_core.testing.accounted`); bytes the dialect cannot
describe are kept in an ``unknown`` part; ``from``, ``trigger``, flags, part
kinds and part states are all Session Data values (a message names the source
line and the field, e.g. ``from: record ord 1: 'assistant' is not a Session
Data value``); flags come only from the adapter's declared rules (the message
names the source line and the field); the glossary covers the vocabulary;
headers, file kinds, file names and seq follow the storage-root rules; the
samples parse into conversations whose asz.view document cites every record
with text (``summary.coverage``: cited == records); no two sessions share a
record id unless one continues the other (the message names the sessions and
the ids: trial 25a, F3), and a line landed byte for byte in two sessions (a
resumed copy) keeps one id, not one naming each session; a second collect lands nothing; appending a line lands one record;
an adapter declaring ``sessions_in_parallel`` lands the samples in two worker
processes byte for byte as in one.
"""

from __future__ import annotations

from .landing import collect_once, landed_records

__all__ = ["AdapterConformance", "collect_once", "landed_records"]


def __getattr__(name: str):
    """Load the pytest mixin on first use only: ``asz scenario`` imports this package in installs without pytest."""
    if name == "AdapterConformance":
        from .conformance import AdapterConformance

        return AdapterConformance
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
