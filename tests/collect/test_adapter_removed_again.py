"""An adapter uninstalled, then installed again: its sessions are assembled by it again, and while it is away the
readers say so (trial 49c F1, F3).

F1: with a third-party adapter (Heron) uninstalled, ``asz parse`` assembled its sessions without it (its tool
vocabulary gone: 91 shell runs counted as 2); installed again, ``asz parse`` wrote 0 rounds and ``asz collect`` kept
the adapter-less figures until ``asz parse ID --anew``: the assembly mark came back, and the chain named it among the
marks that had assembled it already. Now the chain's state names the dialects no installed adapter spoke at its
assembly (``unread_dialects``), and one an installed adapter speaks again is assembled again.

F3: with the adapter away, ``asz ls``, ``asz usage`` and ``asz conversation`` said nothing of it, and ``asz usage
tools`` said its adapter names no word for a failed call.

Real parts: the template adapter with a tool vocabulary (``shell`` runs a shell command), installed by a real pip as
its own distribution (tests/cli_helpers.py, as tests/reading/test_landed_by_version.py does), "uninstalled" by leaving
its folder off ``PYTHONPATH`` (what the entry points are read from), the template's samples and the real ``asz``.
The shell runs are counted from the sample files.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from asz_core.storage.root import read_state
from cli_helpers import pip_installed_plugins

TEMPLATE = Path(__file__).resolve().parents[2] / "plugin-template"
DIALECT = "example-codex/1"

MODULE = '''
from asz_core import hookimpl
from asz_adapter_example.plugin import ExampleCodexAdapter


class Vocabulary(ExampleCodexAdapter):
    tool_roles = {"example-codex/1": {"shell": "shell"}}


@hookimpl
def asz_register_adapters():
    return [Vocabulary]
'''


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The adapter installed by pip (``--target``) as distribution ``asz-adapter-vocab-test``, entry point
    ``example-codex``."""
    if not (TEMPLATE / "asz_adapter_example").is_dir():
        pytest.skip("plugin-template is not beside the tests")
    return pip_installed_plugins(tmp_path_factory.mktemp("vocab"),
                                 [("asz-adapter-vocab-test", "asz_adapter_vocab_test", MODULE, "example-codex")])


def _asz(site: Path | None, home: Path, *args: str) -> subprocess.CompletedProcess:
    """``asz`` with the adapter installed (``site`` on ``PYTHONPATH``) or not (None)."""
    env = dict(os.environ, HOME=str(home), CLAUDE_CONFIG_DIR=str(home / "claude"))
    env.pop("ASZ_DISABLE_ADAPTERS", None)
    env["PYTHONPATH"] = os.pathsep.join([str(site), str(TEMPLATE)] if site else [])
    proc = subprocess.run([sys.executable, "-m", "asz_core.cli.entry", *args], capture_output=True, text=True,
                          env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def _template_version() -> str:
    """The template adapter's version, as its pyproject.toml says it (the one its files land under)."""
    import tomllib

    return tomllib.loads((TEMPLATE / "pyproject.toml").read_text())["project"]["version"]


def _shell_calls(src: Path) -> dict[str, int]:
    """The ``shell`` function calls of each sample session, counted from its file (the session id ends its name)."""
    return {p.stem[-36:]: sum(1 for line in p.read_text().splitlines()
                              if '"type":"function_call","name":"shell"' in line) for p in src.rglob("rollout-*.jsonl")}


def _bash_runs(site: Path | None, home: Path, root: Path) -> dict[str, int]:
    return {r["id"]: r["bash_runs"] for r in orjson.loads(_asz(site, home, "ls", "--root", str(root), "--json").stdout)}


def _collected(site: Path, tmp_path: Path) -> tuple[Path, Path, dict[str, int]]:
    src, root = tmp_path / "src", tmp_path / "root"
    shutil.copytree(TEMPLATE / "samples", src)
    _asz(site, tmp_path, "collect", "--once", "--adapter", "example-codex", "--source", str(src), "--root", str(root))
    shell = _shell_calls(src)
    assert sum(shell.values()) == 2 and _bash_runs(site, tmp_path, root) == shell  # its vocabulary counts them
    return src, root, shell


@pytest.mark.slow  # asz run 6 to 9 times: 15 to 30 s on two shared cores
def test_installed_again_asz_parse_assembles_what_was_drawn_without_it(site, tmp_path):
    _src, root, shell = _collected(site, tmp_path)
    away = _asz(None, tmp_path, "parse", "--root", str(root))
    drawn = sum(1 for n in shell.values() if n)  # asz's default vocabulary: no tool of these is named Bash
    assert f"{drawn} round(s) written" in away.stderr, away.stderr
    assert _bash_runs(None, tmp_path, root) == {s: 0 for s in shell}
    states = [read_state(p) for p in root.glob("_conversations/*/conversation.state")]
    assert len(states) == 2 and all(st["unread_dialects"] == DIALECT for st in states)
    back = _asz(site, tmp_path, "parse", "--root", str(root))
    assert f"{drawn} round(s) written" in back.stderr, back.stderr
    assert _bash_runs(site, tmp_path, root) == shell
    assert not any("unread_dialects" in read_state(p) for p in root.glob("_conversations/*/conversation.state"))
    # the other way round nothing is assembled again: two installations on one root write no round back and forth
    assert "0 round(s) written" in _asz(None, tmp_path, "parse", "--root", str(root)).stderr
    assert _bash_runs(site, tmp_path, root) == shell


@pytest.mark.slow  # asz run 6 to 9 times: 15 to 30 s on two shared cores
def test_installed_again_asz_collect_assembles_them_and_says_why(site, tmp_path):
    src, root, shell = _collected(site, tmp_path)
    _asz(None, tmp_path, "parse", "--root", str(root))
    col = _asz(site, tmp_path, "collect", "--once", "--adapter", "example-codex", "--source", str(src), "--root", str(root))
    assert " landed=0 " in col.stdout and f" rounds={sum(1 for n in shell.values() if n)} " in col.stdout, col.stdout
    assert "note: parse assembled 2 session(s) again in which nothing new landed" in col.stderr, col.stderr
    assert _bash_runs(site, tmp_path, root) == shell


@pytest.mark.slow  # asz run 6 to 9 times: 15 to 30 s on two shared cores
def test_readers_say_the_dialect_no_installed_adapter_speaks(site, tmp_path):
    _src, root, shell = _collected(site, tmp_path)
    sessions = sorted(shell)
    n = len(sessions)
    said = (f"note: {n} session(s) of {DIALECT}, a dialect no installed adapter speaks (asz adapters list): where its "
            "adapter would answer (its tool names, the word for a failed call, titles) asz's defaults read them; with "
            "the adapter installed again, asz parse or the next asz collect assembles them by it\n")
    ls = _asz(None, tmp_path, "ls", "--root", str(root))
    assert "\n" + said in ls.stdout, ls.stdout
    assert f"asz ls: {said}" in _asz(None, tmp_path, "ls", "--root", str(root), "--json").stderr
    assert f"asz usage: {said}" in _asz(None, tmp_path, "usage", "--root", str(root)).stderr
    tools = _asz(None, tmp_path, "usage", "tools", "--root", str(root)).stdout
    assert f"{DIALECT}: no installed adapter speaks it (asz adapters list)" in tools and "names no word" not in tools
    files = len(list((root / sessions[0]).rglob("*.sd")))
    conv = _asz(None, tmp_path, "conversation", sessions[0], "--root", str(root)).stdout
    version = _template_version()
    assert (f"\nlanded by example-codex/{version} ({files} of {files} file(s)) in {DIALECT}: no installed adapter speaks it "
            "(asz adapters list); where its adapter would answer, asz's defaults read them\n") in conv, conv
    # the page's list says it too, under the list (its note; fix49d: the page said nothing)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "view_server"))
    from view_server_helpers import Served  # a loopback asz view in a new interpreter (PYTHONPATH given)

    served = Served(["view", "--root", str(root)], tmp_path, env={"PYTHONPATH": "", "HOME": str(tmp_path)})
    try:
        assert said.rstrip("\n") in served.get("/api/conversations").json()["note"].split("\n")
    finally:
        served.stop()
    # installed: none of it
    assert "no installed adapter" not in _asz(site, tmp_path, "ls", "--root", str(root)).stdout
    assert "no installed adapter" not in _asz(site, tmp_path, "usage", "--root", str(root)).stderr
    tools = _asz(site, tmp_path, "usage", "tools", "--root", str(root)).stdout
    assert f"{DIALECT}: a metadata.exit_code other than 0 in its output" in tools  # the template's failed_word
    assert "landed by" not in _asz(site, tmp_path, "conversation", sessions[0], "--root", str(root)).stdout
