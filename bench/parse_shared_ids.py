"""Parse of many sessions that share record ids (trial 17, F18): CPU per session against unique ids, same run.

Makes N copies of one real Claude Code transcript (default: the 15-line
``-home-user-spotter/55604662…`` of ``../shared/corpus/claude-code/projects``):

- *shared*: only ``sessionId`` and the file name changed (what many
  ``claude --resume`` copies of one history look like: every record keeps its
  ``uuid``, ``parentUuid``, message id and request id);
- *unique*: every UUID and every ``msg_``/``req_``/``toolu_`` id changed too, so
  no two sessions share an id (the baseline).

Each set is landed once (``asz_core.testing.collect_once``, not timed), then a
fresh copy is parsed by ``parse_root(root, jobs=1)`` in this process, timed by
``time.process_time``; it prints, per N, the CPU seconds of the parse and per
session, and the ratio shared / unique::

    python bench/parse_shared_ids.py [--copies 100 200 400] [--work DIR] [--source FILE]

``--profile FILE`` writes a cProfile of the largest shared parse to FILE.
``--only shared|unique --copies N --work DIR`` lands (when absent) and parses one
set, for an instruction count under ``PYTHONHASHSEED=0 valgrind --tool=cachegrind --cache-sim=no``.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import time
import uuid
from pathlib import Path

from _common import work_over_source  # bench/_common.py

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
SOURCE = REPO.parent / "shared/corpus/claude-code/projects/-home-user-spotter/55604662-cf2a-4331-851a-ec234028f8ca.jsonl"
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_PROVIDER_ID = re.compile(r"\b(msg|req|toolu)_[0-9A-Za-z]+")


def generate(dest: Path, source: Path, copies: int, unique: bool) -> None:
    """``copies`` sessions under ``dest/-proj-copies/``: ``source`` with a new ``sessionId`` (and file name) each;
    with ``unique`` every other UUID and provider id is made per copy too."""
    text = source.read_text(encoding="utf-8")
    old = source.stem
    proj = dest / "-proj-copies"
    proj.mkdir(parents=True, exist_ok=True)
    for i in range(copies):
        new = str(uuid.uuid5(uuid.NAMESPACE_URL, f"asz-bench-copy-{i}"))
        if unique:
            body = _UUID.sub(lambda m: new if m.group(0) == old else str(uuid.uuid5(uuid.NAMESPACE_URL, f"{i}/{m.group(0)}")), text)
            body = _PROVIDER_ID.sub(lambda m: f"{m.group(0)}c{i}", body)
        else:
            body = text.replace(old, new)
        (proj / f"{new}.jsonl").write_text(body, encoding="utf-8")


def landed(work: Path, source: Path, copies: int, unique: bool) -> Path:
    """The landed root of one set under ``work`` (landed when absent)."""
    from asz_adapters_claude.plugin import ClaudeCodeLocal
    from asz_core.testing import collect_once

    name = f"{'unique' if unique else 'shared'}-{copies}"
    root = work / f"landed-{name}"
    if not root.exists():
        src = work / f"src-{name}"
        shutil.rmtree(src, ignore_errors=True)
        generate(src, source, copies, unique)
        collect_once(root, ClaudeCodeLocal(), src)  # lands only (as asz collect --no-parse)
    return root


def parse_copy(root: Path, scratch: Path, profile: str | None = None) -> float:
    """CPU seconds of one ``parse_root(jobs=1)`` of a fresh copy of ``root``; asserts no session had a problem."""
    from asz_core.flow.parse import parse_root

    shutil.rmtree(scratch, ignore_errors=True)
    shutil.copytree(root, scratch)
    for p in scratch.iterdir():  # each session's index too: parse builds it, as after collect --no-parse
        if p.is_dir() and not p.name.startswith("_"):
            shutil.rmtree(p / "index", ignore_errors=True)
    if profile:
        import cProfile

        prof = cProfile.Profile()
        t = time.process_time()
        rep = prof.runcall(parse_root, scratch, jobs=1)
        took = time.process_time() - t
        prof.dump_stats(profile)
    else:
        t = time.process_time()
        rep = parse_root(scratch, jobs=1)
        took = time.process_time() - t
    bad = [o.problem for o in rep.outcomes if o.problem]
    assert not bad, bad[:3]
    return took


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, nargs="+", default=[100, 200, 400])
    ap.add_argument("--source", type=Path, default=SOURCE)
    ap.add_argument("--work", type=Path, default=None, help="keep landed roots here between runs")
    ap.add_argument("--profile", default=None, help="cProfile of the largest shared parse to this file")
    ap.add_argument("--only", choices=["shared", "unique"], default=None, help="parse one set only (for cachegrind)")
    a = ap.parse_args(argv)
    work = work_over_source(a, "asz-shared-ids-")
    if work is None:
        return 0
    if a.only:
        for n in a.copies:
            root = landed(work, a.source, n, a.only == "unique")
            print(f"{a.only} {n}: {parse_copy(root, work / f'scratch-{os.getpid()}'):.2f} s CPU")
        shutil.rmtree(work / f"scratch-{os.getpid()}", ignore_errors=True)
        return 0
    print(f"{'sessions':>8} {'shared s':>9} {'ms/session':>10} {'unique s':>9} {'ms/session':>10} {'ratio':>6}")
    for n in a.copies:
        shared_root, unique_root = landed(work, a.source, n, False), landed(work, a.source, n, True)
        prof = a.profile if a.profile and n == max(a.copies) else None
        s = parse_copy(shared_root, work / f"scratch-{os.getpid()}", prof)
        u = parse_copy(unique_root, work / f"scratch-{os.getpid()}")
        print(f"{n:>8} {s:>9.2f} {1000 * s / n:>10.2f} {u:>9.2f} {1000 * u / n:>10.2f} {s / u:>6.2f}", flush=True)
    shutil.rmtree(work / f"scratch-{os.getpid()}", ignore_errors=True)
    if a.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
