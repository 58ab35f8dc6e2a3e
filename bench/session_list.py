"""What the list of landed sessions costs a collect pass with nothing new (issue 22; docs/storage-root.md).

Builds a root of ``--sessions`` session directories, each with one landed file (a header and a closing line), lets
:func:`~asz_core.storage.session_list.record_sessions` write their lines once, then times ``--calls`` more calls
that find nothing to add (what the end of every collect pass does), in CPU seconds, against
:func:`~asz_core.storage.layout.session_dirs` over the same root in the same run (what every pass already does once
per adapter to check undiscovered sessions). Prints the best of ``--repeat`` runs of each. Then times what ``asz ls``
and ``asz usage`` pay to say the listed sessions that are missing (:func:`~asz_core.verify.listed.missing_note`: the
list read, and each listed session's directories read until its first landed file), against the same
``session_dirs``.

::

    python bench/session_list.py --sessions 1342 --calls 200
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from asz_core.sessiondata.times import format_stamp
from asz_core.storage.layout import session_dirs
from asz_core.storage.session_list import SESSION_LIST, record_sessions
from asz_core.verify.listed import missing_note


def build(root: Path, n: int) -> None:
    stamp = format_stamp(1_764_000_000_000_000_000)
    for i in range(n):
        d = root / f"{i:08x}-0000-4000-8000-000000000000" / "streams" / "main"
        d.mkdir(parents=True)
        (d / f"transcript-{stamp}-000001.sd").write_bytes(
            b'{"h":1,"schema":"sd/1","kind":"transcript","adapter":"bench/0"}\n{"t":"end","records":0}\n')


def best(fn, calls: int, repeat: int) -> float:
    out = []
    for _ in range(repeat):
        t = time.process_time()
        for _ in range(calls):
            fn()
        out.append((time.process_time() - t) / calls)
    return min(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=1342)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "root"
        build(root, a.sessions)
        assert len(record_sessions(root).added) == a.sessions
        size = os.path.getsize(root / SESSION_LIST)
        rec = best(lambda: record_sessions(root), a.calls, a.repeat)
        assert os.path.getsize(root / SESSION_LIST) == size  # nothing new: nothing written
        dirs = best(lambda: session_dirs(root), a.calls, a.repeat)
        assert missing_note(root) == ""
        miss = best(lambda: missing_note(root), a.calls, a.repeat)
    print(f"{a.sessions} sessions, list {size} bytes: record_sessions with nothing to add {rec * 1000:.2f} ms CPU; "
          f"session_dirs {dirs * 1000:.2f} ms CPU; ratio {rec / dirs:.2f}; "
          f"missing_note {miss * 1000:.2f} ms CPU; ratio {miss / dirs:.2f}")


if __name__ == "__main__":
    main()
