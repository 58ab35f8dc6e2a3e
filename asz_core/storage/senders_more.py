"""The entries of :func:`asz_core.storage.senders.session_senders` that name no sender line: landed files whose line a
receiver killed mid-request has not written yet (trial 45c F1), and the instances whose copy of the session the
receiver refused as held here whole (trial 45c F3); docs/push.md, Who sent what."""

from __future__ import annotations

import os

__all__ = ["ALSO_HELD", "UNWRITTEN", "UNWRITTEN_SAID", "UNWRITTEN_SENDER", "held_entries", "unwritten_entry"]

#: The key of a :func:`~asz_core.storage.senders.session_senders` entry for an instance whose copy of the session was
#: refused as held here whole (:func:`held_entries`; trial 45c F3).
ALSO_HELD = "also_held"
#: The key of a :func:`~asz_core.storage.senders.session_senders` entry for landed files whose sender line a receiver
#: killed mid-request had not yet written (its journal names them: :func:`~asz_core.storage.landing.left_intents`;
#: trial 45c F1).
UNWRITTEN = "line_not_yet_written"
#: What ``asz ls`` (SENT BY) and ``asz usage instance`` call the sender of such files: received, the line to come.
UNWRITTEN_SENDER = "(landed, sender line not yet written)"
#: What ``asz conversation``, the exports' head and ``asz verify`` say of such files.
UNWRITTEN_SAID = ("landed, its sender line not yet written: asz receive was stopped (killed) after landing {n} file(s) "
                  "and before writing their lines; its request's journal ({journal}) names who sent them, and the "
                  "receiver's next start, or that host's next push, writes the lines")


def unwritten_entry(files: list[str], journal: str) -> dict:
    """The :func:`~asz_core.storage.senders.session_senders` entry of ``files`` (root-relative landed paths) whose
    sender line is not yet written (:data:`UNWRITTEN`): ``instance``, ``credential`` and the times null, ``files`` their count,
    :data:`UNWRITTEN` true and ``journal`` the root-relative path of the journal naming them."""
    return {"instance": None, "credential": None, "files": len(files), "first_received": None, "last_received": None,
            UNWRITTEN: True, "journal": journal}


def held_entries(root: str | os.PathLike, session_dir: str, senders: list[dict]) -> list[dict]:
    """One entry per instance that also holds the session (its copies refused here as held whole: the seen list's
    ``held`` lines, :func:`~asz_core.storage.seen_list.also_held`) and is none of ``senders``' instances:
    ``instance``, ``credential`` null, ``files`` 0, ``first_received`` null, ``last_received`` its last such refusal
    and :data:`ALSO_HELD` true. It names no sender of a landed file (SENT BY, the credentials, ``asz usage instance``'s
    rows leave it out) but ``asz ls --instance`` and ``asz usage --instance`` keep the conversation for it, and
    :func:`~asz_core.storage.senders.senders_line` says it (trial 45c F3: only ``asz usage instance`` said it)."""
    from .seen_list import also_held

    have = {s.get("instance") for s in senders}
    return [{"instance": inst, "credential": None, "files": 0, "first_received": None, "last_received": at,
             ALSO_HELD: True} for inst, at in sorted(also_held(root).get(session_dir, {}).items()) if inst not in have]
