"""Benchmark: ``/api/c/{id}/headings`` of one talk of 100,000 steps whose every tool result is followed by a hook
notice (Claude Code 1.0.x's ``Running PostToolUse:Bash...``), the short form of each read since c3d57f93.

Usage: ``python bench/headings_notices.py [CALLS] [DIR] [REPEAT]`` (33,333 calls, a temporary folder, 2 runs).

Prints the CPU of ``found_store.headings_of`` in a fresh ``ViewState`` with the short forms read for the compaction
boundaries only (``before``: fbe44e18's rule, this run's baseline) and for every ``titles.SHORT_FORM_KINDS`` step
(``after``), alternated, and their ratio. review43: 0.55 -> 6.6 s at c3d57f93 (a record read per notice), 0.50 ->
1.24 s once each answer names each landed file once and pauses the collector (the document itself: 3.1 s).
Timing lives here, never in tests.
"""
import json, sys, time, tempfile
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from view import SESSION, _ts  # noqa: E402  (bench/view.py: the same session)
calls = int(sys.argv[1]) if len(sys.argv) > 1 else 33333
d = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(tempfile.mkdtemp(prefix="asz-headings-"))
src, root = d / "projects", d / "root"
if not root.exists():
    proj = src / "-home-dev-bench"; proj.mkdir(parents=True)
    base = {"isSidechain": False, "userType": "external", "cwd": "/home/dev/bench", "sessionId": SESSION, "version": "1.0.43", "gitBranch": "main"}
    ms = 1_786_000_000_000; lines = []
    uid = "u0000-0000-4000-8000-000000000000"
    lines.append({**base, "parentUuid": None, "type": "user", "uuid": uid, "timestamp": _ts(ms), "message": {"role": "user", "content": "Task: fix what fails."}})
    parent = uid
    for c in range(calls):
        ms += 900
        mid, tid = f"msg_{c:06d}", f"toolu_{c:06d}"
        a1, r, s = f"a{c:06d}-0000-4000-8000-000000000000", f"r{c:06d}-0000-4000-8000-000000000000", f"s{c:06d}-0000-4000-8000-000000000000"
        usage = {"input_tokens": 12, "cache_read_input_tokens": 20_000 + c, "output_tokens": 80}
        lines.append({**base, "parentUuid": parent, "type": "assistant", "uuid": a1, "timestamp": _ts(ms),
                      "message": {"id": mid, "role": "assistant", "model": "claude-opus-5", "content": [{"type": "tool_use", "id": tid, "name": "Bash", "input": {"command": f"make test STEP={c}", "description": "run the tests"}}], "stop_reason": "tool_use", "usage": usage}})
        lines.append({**base, "parentUuid": a1, "type": "user", "uuid": r, "timestamp": _ts(ms + 700),
                      "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tid, "content": "ok " * 10}]},
                      "toolUseResult": {"stdout": "ok " * 10, "stderr": "", "interrupted": False, "isImage": False}})
        lines.append({**base, "parentUuid": r, "type": "system", "uuid": s, "timestamp": _ts(ms + 710), "content": "Running \u001b[1mPostToolUse:Bash\u001b[22m...", "isMeta": False, "toolUseID": tid, "level": "info"})
        parent = s
    (proj / f"{SESSION}.jsonl").write_text("".join(json.dumps(x, separators=(",", ":")) + "\n" for x in lines))
    from asz_adapters_claude.plugin import ClaudeCodeLocal
    from asz_core.flow.parse import parse_root
    from asz_core.testing import collect_once
    collect_once(root, ClaudeCodeLocal(), src); parse_root(root)
from asz_core.view.state import ViewState
from asz_core.view import titles, found_store
full = titles.SHORT_FORM_KINDS
res = {"before": [], "after": []}
for rep in range(int(sys.argv[3]) if len(sys.argv) > 3 else 2):
    for name, k in (("before", frozenset({"epoch.boundary"})), ("after", full)) if rep % 2 == 0 else (("after", full), ("before", frozenset({"epoch.boundary"}))):
        s = ViewState(root)
        dd = s.document(SESSION, ())
        titles.SHORT_FORM_KINDS = k
        t = time.process_time()
        h = found_store.headings_of(s, SESSION, dd, ())
        res[name].append(time.process_time() - t)
        print(name, "%.3f s" % res[name][-1], "lines", len(h["lines"]), flush=True)
b, a = min(res["before"]), min(res["after"])
print("steps ~", 1 + 3 * calls, "before %.3f s after %.3f s ratio %.3f" % (b, a, a / b))
