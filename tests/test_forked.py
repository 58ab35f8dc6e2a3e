"""The fork server of tests/forked.py gives what a fresh ``python -m asz_core.cli.main`` gives: each command line here
runs both ways and must exit with the same status and print the same bytes (docs/testing.md, "Real processes from a
fork server")."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import forked

ASZ = [sys.executable, "-m", "asz_core.cli.main"]
#: The console script's entry run by ``python -c`` (tests/langchain's receivers start so).
ENTRY = "import sys; sys.argv[0] = 'asz'; from asz_core.cli.entry import main; main()"


def _env(**extra: str) -> dict:
    return {**os.environ, "CLAUDE_CONFIG_DIR": "/nonexistent-claude-home", **extra}


def _both(args: list[str], **kw) -> tuple[subprocess.CompletedProcess, subprocess.CompletedProcess]:
    fresh = subprocess.run([*ASZ, *args], capture_output=True, timeout=120, **kw)
    fork = forked.run([*ASZ, *args], capture_output=True, timeout=120, **kw)
    return fresh, fork


def test_exit_status_and_output_are_a_fresh_interpreters(tmp_path: Path):
    """A usage error (exit 2, its line on stderr), a refusal naming a relative root resolved in the working directory
    given (exit 2), and ``--version`` (exit 0): the same status, stdout and stderr both ways."""
    for args in (["nosuch"], ["verify", "--root", "no-root-here"], ["--version"]):
        fresh, fork = _both(args, cwd=tmp_path, env=_env())
        assert (fork.returncode, fork.stdout, fork.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr), args
    assert fresh.returncode == 0 and fresh.stdout.startswith(b"asz 0.2.0")
    fresh, fork = _both(["verify", "--root", "no-root-here"], cwd=tmp_path, env=_env())
    assert fork.returncode == 2 and str(tmp_path / "no-root-here").encode() in fork.stderr + fork.stdout, fork.stderr
    # ``python -c PROGRAM ARGS``: the console entry as tests/langchain starts its receivers, and a program that says
    # what ``python -c`` gives it (its arguments, ``__main__`` without a file or spec) and exits 3
    for program, args in ((ENTRY, ["nosuch"]), (ENTRY, ["--version"]), (ENTRY, ["verify", "--root", "no-root-here"]),
                          ("import sys; print(sys.argv, __name__, __spec__, '__file__' in globals()); sys.exit(3)", ["a", "b"])):
        cmd = [sys.executable, "-c", program, *args]
        fresh = subprocess.run(cmd, capture_output=True, timeout=120, cwd=tmp_path, env=_env())
        fork = forked.run(cmd, capture_output=True, timeout=120, cwd=tmp_path, env=_env())
        assert (fork.returncode, fork.stdout, fork.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr), args
    assert (fork.returncode, fork.stdout) == (3, b"['-c', 'a', 'b'] __main__ None False\n")


def test_a_forked_child_is_its_own_process_in_its_own_session_and_dies_by_the_signal_sent(tmp_path: Path):
    """``start_new_session``: the child leads its own process group when ``Popen`` returns; its pid is neither the
    test's; SIGKILL gives ``returncode`` -9 and the same stderr, SIGTERM of a watching collector exit 0 (a command
    that runs until stopped, docs/cli.md) and the same ``stopped: …`` line last on stderr, as for a fresh one."""
    src = tmp_path / "src"
    src.mkdir()
    codes = {}
    for how in (subprocess.Popen, forked.Popen):
        for sig in (signal.SIGKILL, signal.SIGTERM):
            root = tmp_path / f"data-{how.__module__}-{sig}"
            args = [*ASZ, "collect", "--source", str(src), "--root", str(root), "--interval", "100ms"]
            err_file = tmp_path / f"stderr-{how.__module__}-{sig}"
            with err_file.open("wb") as err_out:
                p = how(args, env=_env(), stdout=subprocess.PIPE, stderr=err_out, start_new_session=True)
            assert os.getpgid(p.pid) == p.pid != os.getpid()
            deadline = time.monotonic() + 60
            # The collector made its root and said its first pass found nothing: the command runs, waiting for the
            # next pass. (Signalled on seeing the root alone, a fresh interpreter was once killed between the two.)
            while b"no session found" not in err_file.read_bytes() and p.poll() is None and time.monotonic() < deadline:
                time.sleep(0.01)
            assert (root / "_sessions.list").exists(), err_file.read_text()
            p.send_signal(sig)
            p.communicate(timeout=60)
            err = err_file.read_text()
            codes[how.__module__, sig] = (p.returncode, err.replace(str(root), "ROOT").splitlines()[-1:])
    assert codes[("subprocess", signal.SIGKILL)] == codes[("forked", signal.SIGKILL)], codes
    assert codes[("forked", signal.SIGKILL)][0] == -9, codes
    assert codes[("subprocess", signal.SIGTERM)] == codes[("forked", signal.SIGTERM)], codes
    assert codes[("forked", signal.SIGTERM)][0] == 0 and codes[("forked", signal.SIGTERM)][1][0].startswith("stopped: "), codes


def test_environment_and_zone_are_the_childs_own(tmp_path: Path):
    """The environment given replaces the server's before the command runs (``TZ`` applied by ``tzset``): ``asz
    usage --help`` and an unknown ``--tz`` read the same both ways, and a variable set for the child only reaches it."""
    fresh, fork = _both(["conversations", "--root", str(tmp_path / "none"), "--tz", "Nowhere/Atall"], env=_env(TZ="Asia/Tokyo"))
    assert (fork.returncode, fork.stderr) == (fresh.returncode, fresh.stderr) and fork.returncode != 0
    p = forked.run([*ASZ, "verify", "--root", "r"], capture_output=True, text=True, cwd=tmp_path,
                   env=_env(ASZ_CONFIG=str(tmp_path / "missing.yaml")))
    q = subprocess.run([*ASZ, "verify", "--root", "r"], capture_output=True, text=True, cwd=tmp_path,
                       env=_env(ASZ_CONFIG=str(tmp_path / "missing.yaml")))
    assert (p.returncode, p.stdout, p.stderr) == (q.returncode, q.stdout, q.stderr)


#: What a module-level statement calls or reads that depends on the environment (``os.environ``, ``os.getenv``,
#: ``Path.home``/``expanduser``, :func:`asz_core.netguard.seconds` and :meth:`asz_core.envsetting.Setting.value`, which
#: read an environment variable; session 43's receive_http reads its settings through the latter).
_ENV_NAMES = frozenset(("environ", "getenv", "home", "expanduser", "seconds", "value"))


def _import_time_env_reads(path: Path) -> list[str]:
    """``path:line`` of each environment read (:data:`_ENV_NAMES`) a module runs at its import: its top-level
    statements and class bodies, a function's decorators and defaults, never a function's or a lambda's body."""
    import ast

    found: list[str] = []

    def visit(node) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for sub in [*node.decorator_list, *node.args.defaults, *node.args.kw_defaults]:
                if sub is not None:
                    visit(sub)
            return
        if isinstance(node, ast.Lambda):
            return
        name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
        if name in _ENV_NAMES and isinstance(node.ctx, ast.Load):  # a read, not a name bound (a field ``seconds: float``)
            found.append(f"{path}:{node.lineno}")
        for sub in ast.iter_child_nodes(node):
            visit(sub)

    tree = ast.parse(path.read_text(encoding="utf-8"))
    for stmt in tree.body:
        if not isinstance(stmt, (ast.Import, ast.ImportFrom)):
            visit(stmt)
    return found


def test_no_module_the_server_preloads_reads_the_environment_at_its_import():
    """A forked child keeps what the server's imports read: no asz module the preload loads (read from a fresh
    interpreter's ``sys.modules`` after importing :data:`forked.PRELOAD`) reads the environment at its import, so a
    test's ``env=`` reaches every child (review34). The scan is not blind: it finds the timeouts view/guard.py and
    export/receive_http.py read at their import, which the preload must therefore leave to the child."""
    code = ("import importlib, sys, forked\n[importlib.import_module(m) for m in forked.PRELOAD]\n"
            "print('\\n'.join(sorted(m.__file__ for n, m in list(sys.modules.items())\n"
            "      if n.startswith('asz') and (getattr(m, '__file__', None) or '').endswith('.py'))))")
    p = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).parent, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    loaded = [Path(x) for x in p.stdout.split()]
    assert len(loaded) > 50 and any(x.name == "collect_cmd.py" for x in loaded)
    assert [r for x in loaded for r in _import_time_env_reads(x)] == []
    pkg = Path(forked.__file__).resolve().parents[1] / "asz_core"
    for readers in (pkg / "view" / "guard.py", pkg / "export" / "receive_http.py"):
        assert _import_time_env_reads(readers) and readers not in loaded
