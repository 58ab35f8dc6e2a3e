"""The optional compiled modules are used only when built from the C source beside them (sessiondata/compiled.py).

An editable install keeps the module built at install time; after a pull that changes its ``.c`` file the module
would lack functions the Python calls. These tests load the real built module under a temporary package next to a
changed copy of its source, and next to the same source.
"""

from __future__ import annotations

import hashlib
import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

from asz_core.sessiondata.compiled import load_compiled

REPO = Path(__file__).resolve().parents[2]
MODULES = [("asz_core.sessiondata.bytescan", REPO / "asz_core/sessiondata/bytescan.c"),
           ("asz_core.verify.linescan", REPO / "asz_core/verify/linescan.c"),
           ("asz_core.sessiondata.jsoncheck", REPO / "asz_core/sessiondata/jsoncheck.c"),
           ("asz_adapters_claude.usual_line", REPO / "asz_adapters_claude/usual_line.c")]


def _built(module: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None or not spec.origin.endswith(".so"):
        pytest.skip(f"{module} is not built here (an install without a C compiler uses the Python path)")
    return Path(spec.origin)


@pytest.mark.parametrize("module,source", MODULES, ids=["bytescan", "linescan", "jsoncheck", "usual_line"])
def test_the_installed_module_is_built_from_its_source(module, source):
    _built(module)
    mod = load_compiled(module)
    assert mod is not None
    assert mod.SOURCE_SHA256 == hashlib.sha256(source.read_bytes()).hexdigest()


@pytest.mark.parametrize("module,source", MODULES, ids=["bytescan", "linescan", "jsoncheck", "usual_line"])
def test_a_module_built_from_another_version_of_its_source_is_not_used(module, source, tmp_path, monkeypatch, capfd):
    so = _built(module)
    name = module.rpartition(".")[2]
    for pkg, text in (("same_src", source.read_bytes()), ("changed_src", source.read_bytes() + b"\n/* a pull changed me */\n")):
        (tmp_path / pkg).mkdir()
        (tmp_path / pkg / "__init__.py").write_text("")
        shutil.copy(so, tmp_path / pkg / so.name)
        (tmp_path / pkg / f"{name}.c").write_bytes(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        assert load_compiled(f"same_src.{name}") is not None
        assert capfd.readouterr().err == ""
        assert load_compiled(f"changed_src.{name}") is None
        err = capfd.readouterr().err
        assert f"was built from another version of {name}.c" in err and "pip install -e ." in err
        assert load_compiled(f"changed_src.{name}") is None
        assert capfd.readouterr().err == ""  # said once a process
        (tmp_path / "changed_src" / f"{name}.c").unlink()  # no source beside it, as in an install from a wheel
        assert load_compiled(f"changed_src.{name}") is not None
    finally:
        for pkg in ("same_src", "changed_src"):
            sys.modules.pop(pkg, None)
            sys.modules.pop(f"{pkg}.{name}", None)
