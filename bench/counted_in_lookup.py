"""Benchmark: what a reader of a resumed copy pays to learn whether the conversation it continues records token counts
(:func:`asz_core.view.counted_in.recorded_in`, session 47), and the other pieces a document's build repeats.

Usage: ``python bench/counted_in_lookup.py ROOT COPY [--before TREE] [--runs 7]``

``ROOT`` is a storage root holding ``COPY``, a conversation that continues another and has no model call of its own
(a transcript copied under a new session id, as tests/continued_copy.py makes one). In one process, for every
conversation of the root: the CPU of the rule before (the continued conversation's summary built,
:func:`~asz_core.view.document.build_summary`) and of :func:`~asz_core.view.counted_in.recorded_in` (its kept
summary), and whether the two answers are the same; the CPU of ``counted_changes`` within each document build and of
``talk_names`` (its own work, its imports warm); the page's build of ``COPY``'s document with each rule. Then the median CPU (user + system) of ``--runs`` runs of ``asz
conversation COPY`` and ``asz export COPY --format md|html``, with this tree and, with ``--before``, the asz tree
there (``PYTHONPATH``), the two alternating in the same run.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

COMMANDS = (("conversation",), ("export", "--format", "md"), ("export", "--format", "html"))


def in_process(root: str) -> None:
    """The lookup before and now, ``counted_changes`` and ``talk_names``, per conversation of ``root`` (CPU s)."""
    import asz_core.reading.export  # noqa: F401  (warm: talk_names imports it, as the command does anyway)
    import asz_core.view.summary as summary
    from asz_core.reading.cost_kinds import talk_names
    from asz_core.view.counted_in import recorded_in
    from asz_core.view.document import build_summary, build_view
    from asz_core.view.rows import list_conversations, usage_unrecorded

    spent = {"counted_changes": 0.0}
    counted = summary.counted_changes

    def timed(*a):
        t = time.process_time()
        try:
            return counted(*a)
        finally:
            spent["counted_changes"] += time.process_time() - t

    summary.counted_changes = timed
    before = now = builds = names = 0.0
    differ = []
    for cid in list_conversations(root):
        t = time.process_time()
        try:
            s = build_summary(root, cid)[0]["summary"]
            old = not usage_unrecorded(s.get("llm_calls"), s.get("calls_with_usage"), s.get("credits"))
        except Exception:  # noqa: BLE001 (as recorded_in: not known)
            old = None
        before += time.process_time() - t
        t = time.process_time()
        new = recorded_in(root)(cid)
        now += time.process_time() - t
        differ += [cid] if new != old else []
        t = time.process_time()
        doc = build_view(root, cid)
        builds += time.process_time() - t
        t = time.process_time()
        talk_names(root, doc)
        names += time.process_time() - t
    summary.counted_changes = counted
    print(f"{len(list_conversations(root))} conversations: look-up before {before * 1000:.0f} ms CPU, now {now * 1000:.0f} ms, "
          f"answers differing {differ or 'none'}")
    print(f"build_view {builds * 1000:.0f} ms CPU (counted_changes in it and in build_summary "
          f"{spent['counted_changes'] * 1000:.1f} ms), talk_names {names * 1000:.1f} ms")


def old_recorded_in(root, rows=()):
    """The rule before session 47, verbatim: the conversation's summary built on every call."""
    listed = {r.get("id"): r.get("usage_recorded") for r in rows}

    def recorded(cid):
        if cid in listed:
            return listed[cid]
        from asz_core.view.document import build_summary
        from asz_core.view.rows import usage_unrecorded

        try:
            s = build_summary(root, cid)[0]["summary"]
        except Exception:  # noqa: BLE001
            return None
        return not usage_unrecorded(s.get("llm_calls"), s.get("calls_with_usage"), s.get("credits"))
    return recorded


def page_build(root: str, copy: str, runs: int) -> None:
    """Median CPU of the page's build of ``copy``'s document (``asz view``'s :class:`~asz_core.view.state.ViewState`,
    warm: one process, as a server is), with the look-up now and with the rule before, alternating."""
    import asz_core.view.counted_in as counted_in
    from asz_core.view.state import ViewState

    state = ViewState(Path(root))
    newest = state.newest_round(copy)
    now = counted_in.recorded_in
    got: dict[str, list[float]] = {"now": [], "before": []}
    for _ in range(runs + 1):
        for name, rule in (("now", now), ("before", old_recorded_in)):
            counted_in.recorded_in = rule
            t = time.process_time()
            state._build(copy, (), newest, state.fingerprint(copy), count=False)
            got[name].append((time.process_time() - t) * 1000)
    counted_in.recorded_in = now
    print("the page's build of the copy's document (one process, warm): "
          + ", ".join(f"{name} {statistics.median(v[1:]):.0f} ms CPU" for name, v in got.items()))


def command_cpu(tree: str | None, args: list[str]) -> float:
    """CPU ms (user + system) of one ``asz ARGS`` run in a child, with ``tree`` first on ``PYTHONPATH`` when given."""
    env = dict(os.environ, **({"PYTHONPATH": tree} if tree else {}))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "asz_core.cli.main", *args], env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("root")
    p.add_argument("copy")
    p.add_argument("--before", help="an asz tree (an unpacked commit) to time beside this one")
    p.add_argument("--runs", type=int, default=7)
    a = p.parse_args()
    in_process(a.root)
    page_build(a.root, a.copy, a.runs)
    trees = [("now", None)] + ([("before", a.before)] if a.before else [])
    for cmd in COMMANDS:
        args = [cmd[0], a.copy, *cmd[1:], "--root", a.root]
        got: dict[str, list[float]] = {name: [] for name, _ in trees}
        for _ in range(a.runs):
            for name, tree in trees:  # alternating, so load on the machine falls on both alike
                got[name].append(command_cpu(tree, args))
        print(f"asz {' '.join(cmd)}: " + ", ".join(f"{name} {statistics.median(v):.0f} ms CPU" for name, v in got.items()))


if __name__ == "__main__":
    main()
