"""Benchmark: the page's credential count over whole texts (close44 "Not done": counts), on the largest corpus
conversation (spotter's 8463c716, 2.9 MB, with its sub-agent files).

Usage: ``python bench/page_whole_count.py [CORPUS] [DIR] [REPEAT]`` (``../shared/corpus``, a temporary folder, 3 runs).

Prints the CPU of ``ViewState._build`` (the document built, its usage, its texts masked and counted) with the clipped
texts counted as clipped (``whole=None``: 22891816's rule, this run's baseline) and over their whole texts read from
the lines the build read (``state.whole_texts``), alternated, the places each counts, and the ratio of the
medians. The count is made once per build, kept with the document; no request reads a text again. Timing lives
here, never in tests.
"""
import shutil, statistics, sys, tempfile, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
corpus = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "shared" / "corpus"
d = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(tempfile.mkdtemp(prefix="asz-whole-count-"))
CID = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
root = d / "root"
if not root.exists():
    shutil.copytree(corpus / "claude-code" / "projects" / "-home-user-spotter", d / "projects" / "-home-user-spotter")
    from asz_adapters_claude.plugin import ClaudeCodeLocal
    from asz_core.flow.parse import parse_root
    from asz_core.testing import collect_once
    collect_once(root, ClaudeCodeLocal(), d / "projects"); parse_root(root)
from asz_core.view import state as state_mod
from asz_core.view.page_secrets import MASKED
res = {"clipped": [], "whole": []}
places = {}
real = state_mod.whole_texts
for rep in range(int(sys.argv[3]) if len(sys.argv) > 3 else 3):
    for name in (("clipped", "whole") if rep % 2 == 0 else ("whole", "clipped")):
        state_mod.whole_texts = real if name == "whole" else (lambda state, c, h, k: None)
        s = state_mod.ViewState(root, credentials=MASKED)
        fp = s.fingerprint(CID)
        t = time.process_time()
        doc = s._build(CID, (), ("", "", ()), fp)
        res[name].append(time.process_time() - t)
        places[name] = doc.secrets["places"]
        print(name, "%.3f s" % res[name][-1], "places", places[name], flush=True)
c, w = statistics.median(res["clipped"]), statistics.median(res["whole"])
print(f"{CID[:8]}: build clipped {c:.3f} s, whole {w:.3f} s, ratio {w / c:.3f}; places {places['clipped']} -> {places['whole']}")
