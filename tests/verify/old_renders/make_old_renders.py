"""Make the copies in this folder again: each by the asz tree that drew its render (run by hand, never by the suite).

    python tests/verify/old_renders/make_old_renders.py CLONE PYTHON [FOLDER…]

CLONE is a clone of asz holding the commits below (``git clone -q /work/main CLONE``), PYTHON a Python with asz's
dependencies (a venv of this checkout). For each render, a detached worktree of CLONE at the last commit that drew it
runs, with ``PYTHONPATH`` set to it (no compiled helper: each is optional), ``asz collect --once`` of the bundled
example (``examples/claude-code/projects``) into a new root in a new HOME, then ``asz export 7d2f1c3e --format F --out
c.F`` (md, html, json: each with its manifest) and ``asz export --since 2026-01-01 --format md --out folder/``; only
the copies named in :data:`KEEP` are kept here with their manifests (the rest are byte for byte another render's),
in the folder :data:`WRITERS` names (only the FOLDERs given, if any).
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
#: folder -> the last commit that drew its copies: ``rN`` the last of render N (the parent of the commit that numbered
#: the next render); ``r1`` the last before tool times went into the headings (e1d32aa6); ``r2u`` the last whose
#: manifest had no ``render`` key though it drew render 2 (b7a02fd6 numbered it); ``r2`` the last of render 2 and
#: ``r3e`` the last of render 3 before f7840f1b changed the cost lines with no new render (``r3``: after it).
WRITERS = {"r1": "e1d32aa6^", "r2u": "b7a02fd6^", "r2": "f0984297^", "r3e": "f7840f1b^", "r3": "fafc0586^",
           "r7": "ba29ca52^", "r8": "161ec3ea^", "r9": "1b814848^", "r12": "2946ea35^"}
#: folder -> the copies kept (paths under the export's folder).
KEEP = {"r1": ["c.md", "c.html"], "r2u": ["c.md", "c.html"], "r2": ["c.md"], "r3e": ["c.md", "c.html"],
        "r3": ["c.md", "c.html"], "r7": ["c.md", "c.html", "c.json"], "r8": ["c.md"], "r9": ["c.md"],
        "r12": ["folder/7d2f1c3e-5b8a-4e61-9f0d-2a4c6e8b1d35.md", "folder/index.md"]}


def main(clone: str, python: str, *only: str) -> None:
    for folder, commit in WRITERS.items():
        if only and folder not in only:
            continue
        with tempfile.TemporaryDirectory(prefix=f"old-render-{folder}-") as tmp:
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
                if any(name.startswith("folder/") for name in KEEP[folder]):
                    run("export", "--since", "2026-01-01", "--format", "md", "--out", "folder/", "--root", "root")
                dest = HERE / folder
                for name in KEEP[folder]:
                    (dest / name).parent.mkdir(parents=True, exist_ok=True)
                    for made in (base / name, base / f"{name}.manifest.json"):
                        if made.is_file():
                            shutil.copyfile(made, dest / made.relative_to(base))
            finally:
                subprocess.run(["git", "-C", clone, "worktree", "remove", "--force", str(tree)], check=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
