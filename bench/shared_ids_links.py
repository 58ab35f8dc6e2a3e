"""What reading the links between sessions that share record ids costs, with :func:`payload_key` made once a record
(its ``pkey``) and made at every comparison as before (trial 48c F3: 751 Kiro sessions, each compared with 84 sharing
ids on average, 1.8 million keys made for 27,389 records).

``python bench/shared_ids_links.py ROOT [--runs N]``: ROOT is a collected storage root (``asz collect --once --root
ROOT``). Each run reads every session's links read-only (:func:`~asz_core.flow.shared_ids.session_links`,
``read_only``: nothing in the root is written), once with keys made every time, once made once, in turn; prints the
CPU seconds of each and the pairs and comparisons made, and that both give the same links."""

from __future__ import annotations

import argparse
import gc
import time
from pathlib import Path

import msgspec

from asz_core.flow import ids_seen, index_model, shared_ids
from asz_core.flow.index import load_index
from asz_core.storage.layout import session_dirs


def _uncached(e: index_model.IndexEntry) -> tuple:
    call, usage, parts = index_model.payload_of(e)
    return (call, (msgspec.json.encode(usage, order="sorted") if usage else usage), tuple((*p[:7], *p[8:]) for p in parts))


def _links(root: Path, names: list[str]) -> tuple[float, list]:
    ids_seen.forget_seen()
    indexes = [(n, load_index(root / n, rebuild=False)) for n in names]
    gc.collect()
    t = time.process_time()
    out = []
    for n, index in indexes:
        lk = shared_ids.session_links(root, n, index, read_only=True)
        out.append((n, sorted(lk.shared.items()), lk.earlier, sorted(lk.later), sorted(lk.repeated.items())))
    return time.process_time() - t, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", type=Path)
    ap.add_argument("--runs", type=int, default=2)
    a = ap.parse_args()
    names = sorted(p.name for p in session_dirs(a.root))
    print(f"{len(names)} sessions in {a.root}")
    kept = index_model.payload_key
    for run in range(a.runs):
        got = {}
        for how, fn in (("made every time", _uncached), ("made once", kept)):
            shared_ids.payload_key = ids_seen.payload_key = fn
            got[how] = _links(a.root, names)
            print(f"run {run + 1}: keys {how}: {got[how][0]:.2f} s CPU")
        assert got["made every time"][1] == got["made once"][1], "the links differ"
    print("same links both ways")


if __name__ == "__main__":
    main()
