"""The compiled modules of asz (issue 22), each optional. Everything else is in pyproject.toml.

- ``asz_core.verify.linescan``: ``asz verify`` reads every record line's positions in one C call, and lists a
  session in one call (``asz_core.verify.listing``).
- ``asz_core.verify.jsonscan``: ``asz verify`` vouches for a session index's lines, and for a round's node and relation
  frames, from their bytes alone (``asz_core.verify.session_files``, ``asz_core.flow.round_read.check_round``).
- ``asz_core.sessiondata.bytescan``: a landed file's whole-file byte scans (the wide-number probe, the most openers
  on a line, ``null``) in one pass, for the asz.view build, parse and the reader; and a cursor's values in one call
  (``asz_core.storage.cursor``).
- ``asz_core.sessiondata.jsoncheck``: whether a source line is orjson's own encoding of its value, told from its
  bytes (``asz_core.canonical_json``), so the Claude Code adapter no longer encodes every line again to know it.
- ``asz_adapters_claude.usual_line``: the Claude Code adapter's own: the usual transcript line (an assistant line of
  text, call and thinking blocks; a user line of a prompt or of tool results with their ``toolUseResult``; a runtime
  bookkeeping line) into its record and parts in one call, the Python of transcript.py and blocks.py its definition
  and fallback.

Where no C compiler is found, or it fails, the install goes on without them and the same work is done in Python
(asz_core/verify/landed.py, asz_core/sessiondata/numberprobe.py), with the same results (docs/verify.md, How fast;
docs/performance.md, "asz.view build at session 15").

Every build but an editable one also records the commit it was built from in ``asz_core/_version_info.py``
(``build_py`` writes it into the built package, ``sdist`` into the archive's tree; asz_core/_commit.py), so
``asz --version`` of ``pip install .`` or a wheel names its commit, or says ``unknown commit`` (trial 23b, F2).
"""

import hashlib
import importlib.util
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

TOP = Path(__file__).resolve().parent


def _commit_module():
    """asz_core/_commit.py loaded by its path: the package itself needs dependencies a build does not have."""
    spec = importlib.util.spec_from_file_location("_asz_commit", TOP / "asz_core" / "_commit.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def write_version_info(package_dir: Path) -> None:
    """Write ``_version_info.py`` (the commit of the checkout being built, '' when none) into ``package_dir``, a
    built ``asz_core``; an existing one (an sdist's, whose tree has no ``.git``) is kept when no commit is found."""
    mod = _commit_module()
    commit = mod.checkout_commit(TOP)
    target = package_dir / mod.GENERATED
    if not commit and target.exists():
        return
    package_dir.mkdir(parents=True, exist_ok=True)
    target.write_text(mod.generated_text(commit), encoding="utf-8")


class BuildPy(build_py):
    """``build_py`` that also writes ``asz_core/_version_info.py`` into the build (not for an editable install, which
    runs from the checkout and asks git itself)."""

    def run(self):
        super().run()
        if not getattr(self, "editable_mode", False):  # an sdist's own _version_info.py was copied with the rest
            write_version_info(Path(self.build_lib) / "asz_core")


class Sdist(sdist):
    """``sdist`` whose archive holds ``asz_core/_version_info.py``, so a wheel built from it names the commit."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        write_version_info(Path(base_dir) / "asz_core")


def compiled(name: str, source: str) -> Extension:
    """The optional extension ``name`` built from ``source``, holding the SHA-256 of that source as ``SOURCE_SHA256``
    (asz_core/sessiondata/compiled.py uses a module only when it matches the ``.c`` beside it)."""
    digest = hashlib.sha256(Path(__file__).parent.joinpath(*source.split("/")).read_bytes()).hexdigest()
    return Extension(name, [source], optional=True, depends=["asz_core/sessiondata/source_digest.h"],
                     define_macros=[("ASZ_SOURCE_SHA256", f'"{digest}"')])


setup(cmdclass={"build_py": BuildPy, "sdist": Sdist}, ext_modules=[
    compiled("asz_core.verify.linescan", "asz_core/verify/linescan.c"),
    compiled("asz_core.sessiondata.bytescan", "asz_core/sessiondata/bytescan.c"),
    compiled("asz_core.sessiondata.jsoncheck", "asz_core/sessiondata/jsoncheck.c"),
    compiled("asz_adapters_claude.usual_line", "asz_adapters_claude/usual_line.c"),
    compiled("asz_core.verify.jsonscan", "asz_core/verify/jsonscan.c"),
])
