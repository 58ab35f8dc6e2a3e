"""Make the copies in this folder again: each by the asz tree that drew its render (run by hand, never by the suite).

    python tests/verify/old_renders/make_old_renders.py CLONE PYTHON

CLONE is a clone of asz holding the commits below (``git clone -q /work/main CLONE``), PYTHON a Python with asz's
dependencies (a venv of this checkout). For each render, a detached worktree of CLONE at the last commit that drew it
runs, with ``PYTHONPATH`` set to it (no compiled helper: each is optional), ``asz collect --once`` of the bundled
example (``examples/claude-code/projects``) into a new root in a new HOME, then ``asz export 7d2f1c3e --format F --out
c.F`` (md, html, json: each with its manifest) and ``asz export --since 2026-01-01 --format md --out folder/``; only
the copies named in :data:`KEEP` are kept here with their manifests (the rest are byte for byte another render's).
The test (``tests/verify/test_verify_old_renders.py``) points each manifest at a root this asz collects from the same
example, so only the drawing is compared (trial 39c F1, F2)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXAMPLE = HERE.parents[2] / "examples" / "claude-code" / "projects"
#: render -> the last commit that drew it (the parent of the commit that numbered the next render).
WRITERS = {3: "fafc0586^", 7: "ba29ca52^", 8: "161ec3ea^", 9: "1b814848^", 12: "2946ea35^"}
#: render -> the copies kept (paths under the export's folder).
KEEP = {3: ["c.md", "c.html"], 7: ["c.md", "c.html", "c.json"], 8: ["c.md"], 9: ["c.md"],
        12: ["folder/7d2f1c3e-5b8a-4e61-9f0d-2a4c6e8b1d35.md", "folder/index.md"]}


def main(clone: str, python: str) -> None:
    for render, commit in WRITERS.items():
        with tempfile.TemporaryDirectory(prefix=f"old-render-{render}-") as tmp:
            base, tree = Path(tmp), Path(tmp) / "tree"
            subprocess.run(["git", "-C", clone, "worktree", "add", "-q", "--detach", str(tree), commit], check=True)
            try:
                env = {**os.environ, "PYTHONPATH": str(tree), "HOME": str(base / "home"), "TZ": "UTC"}
                (base / "home").mkdir()
                shutil.copytree(EXAMPLE, base / "projects")

                def run(*args: str) -> None:
                    subprocess.run([python, "-c", "import sys; sys.argv[0] = 'asz'; from asz_core.cli.entry import main; main()",
                                    *args], cwd=base, env=env, check=True, capture_output=True)

                run("collect", "--once", "--source", "projects", "--root", "root")
                for form in ("md", "html", "json"):
                    run("export", "7d2f1c3e", "--format", form, "--out", f"c.{form}", "--root", "root")
                run("export", "--since", "2026-01-01", "--format", "md", "--out", "folder/", "--root", "root")
                dest = HERE / f"r{render}"
                for name in KEEP[render]:
                    (dest / name).parent.mkdir(parents=True, exist_ok=True)
                    for made in (base / name, base / f"{name}.manifest.json"):
                        if made.is_file():
                            shutil.copyfile(made, dest / made.relative_to(base))
            finally:
                subprocess.run(["git", "-C", clone, "worktree", "remove", "--force", str(tree)], check=True)


if __name__ == "__main__":
    main(*sys.argv[1:3])
