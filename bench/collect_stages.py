"""Where the CPU of one ``asz collect --once --jobs 1`` pass goes, stage by stage, and the JSON and hashing floor under it
(issue 22).

Each run is a fresh process that collects ``SRC`` (a Claude Code projects folder: ``bench/realcorpus.py`` makes one)
into a new root with the stages below wrapped in ``time.process_time`` (the outermost call of each only, so a stage's
figure holds what it calls): landing (``run_passes``) with the Claude Code conversion (``convert_record``) and the
record encoding (``encode_record``) in it; parse (``parse_root``) with the session index (``update_index``, both calls
a session), the id table (``add_ids``, which calls ``update_index`` first) and assembly (``assemble``); the list rows
kept after the pass line (``keep_list_rows``) with the summaries (``build_summary``) and their reading of the landed
records (``_prepare``). Prints one JSON line per run and the medians; ``total_cpu`` is the process's user + system.

``--floor`` then prints what the same bytes cost in the calls no pass can do without, in this process: ``orjson.loads``
of every source line (the bare loop's decode), ``orjson.dumps([value])`` of each (landing's canonical check until
session 19), ``asz_core.canonical_json`` of each (the check from the bytes landing asks first since session 19), the
decode of every landed record line by ``orjson`` (what the list rows' read does) and by ``msgspec`` (what the index's
does), and SHA-256 over the source bytes once (the bare loop hashes them once; a pass hashes about five times that)::

    python bench/realcorpus.py /tmp/c50 --size-mb 50
    python bench/collect_stages.py /tmp/c50 [--runs 3] [--floor]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

CHILD = r"""
import importlib, json, resource, sys, time
src, root = sys.argv[1], sys.argv[2]
spent, depth = {}, {}
STAGES = [("asz_core.collect.collector", "run_passes", "landing"), ("asz_adapters_claude.convert", "convert_record", "convert"),
          ("asz_core.sessiondata.codec", "encode_record", "encode"), ("asz_core.flow.parse", "parse_root", "parse"),
          ("asz_core.flow.index", "update_index", "index"), ("asz_core.flow.shared_ids", "add_ids", "ids_with_index"),
          ("asz_core.flow.assemble", "assemble", "assemble"), ("asz_core.cli.list_rows", "keep_list_rows", "rows"),
          ("asz_core.view.document", "build_summary", "summary"), ("asz_core.view.document", "_prepare", "prepare")]
def wrap(mod, name, label):
    m = importlib.import_module(mod)
    fn = getattr(m, name)
    def timed(*a, **k):
        d = depth.get(label, 0)
        depth[label] = d + 1
        t = time.process_time() if d == 0 else None
        try:
            return fn(*a, **k)
        finally:
            depth[label] -= 1
            if t is not None:
                spent[label] = spent.get(label, 0.0) + time.process_time() - t
    setattr(m, name, timed)
    for other in list(sys.modules.values()):  # a module that imported the name itself
        if getattr(other, "__name__", "").startswith("asz") and getattr(other, name, None) is fn:
            setattr(other, name, timed)
for mod, name, label in STAGES:
    wrap(mod, name, label)
from asz_core.cli.entry import main
sys.argv = ["asz", "collect", "--once", "--jobs", "1", "--source", src, "--root", root]
try:
    main()
except SystemExit as e:
    if e.code not in (0, None):
        raise
ru = resource.getrusage(resource.RUSAGE_SELF)
spent["total_cpu"] = ru.ru_utime + ru.ru_stime
print(json.dumps({k: round(v, 3) for k, v in spent.items()}))
"""


def floor(src: Path, root: Path) -> dict:
    """CPU seconds of the unavoidable calls over the corpus's bytes (see the module docstring), fastest of three."""
    import hashlib
    import time

    import msgspec
    import orjson

    from asz_core import canonical_json

    source = [x for p in sorted(src.rglob("*.jsonl")) for x in p.read_bytes().split(b"\n") if x]
    landed = [x for p in sorted(root.rglob("*.sd")) for x in p.read_bytes().split(b"\n")[1:-2]]
    values = [orjson.loads(x) for x in source]

    def best(fn) -> float:
        out = float("inf")
        for _ in range(3):
            t = time.process_time()
            fn()
            out = min(out, time.process_time() - t)
        return round(out, 3)

    return {
        "source_lines": len(source), "source_mb": round(sum(map(len, source)) / 1e6, 1), "landed_lines": len(landed),
        "loads_source": best(lambda: [orjson.loads(x) for x in source]),
        "dumps_canonical": best(lambda: [orjson.dumps([v]) for v in values]),
        "scan_canonical": best(lambda: [canonical_json(x, 0, len(x)) for x in source]),
        "loads_landed_orjson": best(lambda: [orjson.loads(x) for x in landed]),
        "decode_landed_msgspec": best(lambda: [msgspec.json.decode(x) for x in landed]),
        "sha256_source_once": best(lambda: hashlib.sha256(b"".join(source)).hexdigest()),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source", help="a Claude Code projects folder (bench/realcorpus.py makes one)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--floor", action="store_true", help="also the JSON and hashing floor over the same bytes")
    a = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="asz-stages-"))
    runs: list[dict] = []
    try:
        for i in range(a.runs):
            root = work / f"root{i}"
            r = subprocess.run([sys.executable, "-c", CHILD, str(Path(a.source).resolve()), str(root)], cwd=str(REPO),
                               capture_output=True, text=True, check=False)
            if r.returncode != 0:
                raise SystemExit(r.stderr[-3000:])
            runs.append(json.loads(r.stdout.strip().splitlines()[-1]))
            print(json.dumps(runs[-1]))
        print("median", json.dumps({k: round(statistics.median(r.get(k, 0.0) for r in runs), 3) for k in runs[0]}))
        if a.floor:
            print("floor", json.dumps(floor(Path(a.source), work / "root0")))
        print(f"load {os.getloadavg()[0]:.1f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
