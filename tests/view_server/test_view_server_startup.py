"""What ``asz view`` / ``asz server`` load before they answer (issue 22: listen within 1 s), and the quick argument path.

No timing here (bench/server.py measures it): these tests hold the state that
makes start-up cheap. The options are read without Typer exactly as Typer
reads them, and anything else goes through Typer; and what ``asz view`` does
before serving imports neither pydantic nor the document builder nor the
Session Data codec.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import typer

from asz_core.cli import server_cmd
from asz_core.cli.main import build_app
from asz_core.cli.quick import quick_kwargs
from view_server_helpers import REPO, asz

ARGS = [
    ["--root", "/some/root", "--port", "9"],
    ["--root=/r", "--host", "::1", "--port=+80", "--config", "c.yaml"],
    ["--port", "1", "--port", "2"],  # the last wins, as in Click
    [],
]


def _typer_params(command: str, args: list[str]) -> dict:
    """The keyword arguments Typer itself parses ``args`` into for ``command`` (Click's context, nothing run)."""
    group = typer.main.get_command(build_app(("server_cmd",)))
    return group.commands[command].make_context(command, list(args)).params


@pytest.mark.parametrize("args", ARGS)
@pytest.mark.parametrize("command", ["view", "server"])
def test_quick_arguments_are_what_typer_passes(command, args):
    assert quick_kwargs(getattr(server_cmd, command), args) == _typer_params(command, args)


def test_the_server_options_are_read_as_typer_reads_them():
    args = ["--source", "src", "--interval", "30s", "--adapter", "claude-code-local", "--root", "r"]
    got = quick_kwargs(server_cmd.server, args)
    assert got == _typer_params("server", args)
    assert got["source"] == [Path("src")] and got["interval"] == "30s" and got["port"] == 8787  # --source repeats (a list)


@pytest.mark.parametrize("args", [
    ["--help"], ["--port"], ["--port", "8x"], ["--port", "1.0"], ["--port", "1_000"], ["--nope", "1"],
    ["stray"], ["--root", "-x"], ["--", "--root", "r"],
])
def test_anything_else_is_left_to_typer(args):
    assert quick_kwargs(server_cmd.view, args) is None


def test_typer_still_answers_what_the_quick_path_leaves(tmp_path):
    p = asz("view", "--root", str(tmp_path), "--port", "8x", check=False)
    assert p.returncode == 2 and "--port" in p.stderr  # Typer's usage error
    p = asz("view", "--help", check=False)
    assert p.returncode == 0 and "--root" in p.stdout and "--port" in p.stdout
    p = asz("view", "--root", str(tmp_path / "missing"), "--port", "1", check=False)  # the quick path: the command's own exit
    assert p.returncode == 1 and "no storage root" in p.stderr


def test_view_prepares_its_answer_without_the_heavy_modules(example_root):
    """Everything ``asz view`` does before it serves (config, state, banner, the application, a status answer)
    imports neither pydantic, PyYAML (no asz.yaml), the document builder, the Session Data codec nor the credential
    forms (their expressions compiled: 3 ms, imported by the application's module since 4ccb070d until session 36),
    and makes none of the terminal's escape tables (4,100 entries, 3 ms); they load on the first request that needs
    them."""
    script = f"""
import sys
from asz_core.cli.quick import quick_kwargs
from asz_core.cli import server_cmd
kw = quick_kwargs(server_cmd.view, ["--root", {str(example_root)!r}])
cfg = server_cmd._config("view", kw["config"])
from asz_core.view.server import ViewState, create_app
state = ViewState(kw["root"], hide=cfg.view_hide, hide_override=cfg.view_hide_override, prices=server_cmd._prices(cfg))
server_cmd._banner_common(state, "127.0.0.1", 1)
create_app(state, extra=server_cmd._reading_routes())
assert state.status()["conversations"] == 1
from asz_core.view.guard import uvicorn_config
uvicorn_config(create_app(state), "127.0.0.1", 1).load()
heavy = ("pydantic", "yaml", "asz_core.view.document", "asz_core.sessiondata.codec", "asz_core.flow.fold", "cattrs",
         "asz_core.view.secret_forms")
from asz_core import termsafe
print("HEAVY:" + " ".join([m for m in heavy if m in sys.modules] + ["termsafe table " + t for t in termsafe._TABLES]))
"""
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=example_root, timeout=120)
    assert p.returncode == 0, p.stderr
    heavy = [line for line in p.stdout.splitlines() if line.startswith("HEAVY:")]
    assert heavy == ["HEAVY:"], f"imported before the first answer: {p.stdout}"


def test_the_first_conversation_opened_finds_everything_loaded(example_root):
    """What ``asz view`` loads once it answers (:meth:`ViewState.warm_up`: the document builder and the shipped price
    table, issue 22) is all a first document needs: building one then imports no module."""
    script = f"""
import sys
from asz_core.view.server import ViewState
state = ViewState({str(example_root)!r})
state.warm_up().join(120)
[conversation] = state.conversations()
before = set(sys.modules)
assert state.document(conversation, ()).state == "verified"
print("NEW:" + " ".join(sorted(set(sys.modules) - before)))
"""
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=example_root, timeout=120)
    assert p.returncode == 0, p.stderr
    assert [line for line in p.stdout.splitlines() if line.startswith("NEW:")] == ["NEW:"], p.stdout
