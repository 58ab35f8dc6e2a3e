"""Run the ``asz`` command line in the test's own process, as the console script would run it in a child.

A child ``python -m asz_core.cli.main`` costs about half a second of CPU before
it does anything (interpreter start-up and imports); most tests only need what
the command prints and its exit code, and get them here for a few
milliseconds. A test where the process itself is what is tested (exit codes a
shell sees, signals, kills, servers, pipes, installed entry points, plugins
found on a child's ``sys.path``) keeps running a real child.

:func:`asz_in_process` dispatches as :func:`asz_core.cli.main.main` does (a
core command gets an application holding only its module, anything else the
whole application with the plugins' commands), in ``cwd`` with ``env`` set for
the call; an exception the command does not handle becomes exit status 1 with
its traceback on stderr, as in a child. The SIGINT/SIGTERM handlers a command
installs are put back afterwards.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import traceback
import sys
from pathlib import Path

__all__ = ["app_for", "as_reader", "asz_in_process", "write_secret", "fork_or_skip", "signals_kept", "code_at", "collect_transcript", "rotated_source", "timeless_traces",
           "pip_installed_plugins"]


def write_secret(path: Path, text: str) -> Path:
    """``text`` written to ``path`` at mode 0600, as a token file must be (asz refuses one that other accounts may
    read: :func:`asz_core.export.credentials.private_text`); ``path``."""
    path.write_text(text)
    path.chmod(0o600)
    return path


@contextlib.contextmanager
def signals_kept():
    """The SIGINT and SIGTERM handlers of this process put back on leaving, however it is left: a command run in
    process may change them as it would before its own exit (``collect --once`` ignores SIGINT once its status is
    decided), and a command a later test starts would inherit that."""
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)


def app_for(*args: str):
    """The Typer application ``asz ARGS`` runs in, as :func:`asz_core.cli.main.main` picks it: a core command's own
    module only, anything else (no command, an option, a plugin's command) the whole application with the plugins'
    commands. Building and converting the whole application costs about 30 ms of CPU a call, a module's about 2 ms."""
    from asz_core.cli.main import COMMANDS, build_app

    module = COMMANDS.get(str(args[0])) if args else None
    return build_app((module,)) if module else build_app()


def asz_in_process(*args: str, cwd: Path | str | None = None, env: dict[str, str | None] | None = None,
                   input: str | None = None) -> subprocess.CompletedProcess:
    """``asz ARGS`` run in this process; a :class:`subprocess.CompletedProcess` with text stdout and stderr.

    ``env`` holds the variables to set (None: unset) for the call only; ``cwd``
    is the working directory during the call (default: unchanged).
    """
    from typer.testing import CliRunner

    app = app_for(*args)
    here = os.getcwd()
    try:
        with signals_kept():
            if cwd is not None:
                os.chdir(cwd)
            res = CliRunner().invoke(app, [str(a) for a in args], input=input, env=env, catch_exceptions=True)
    finally:
        os.chdir(here)
    code, stderr = res.exit_code, res.stderr
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        stderr += "".join(traceback.format_exception(*res.exc_info))  # what an uncaught exception prints in a child
        code = 1
    return subprocess.CompletedProcess(["asz", *map(str, args)], code, res.stdout, stderr)


def pasted(line: str, cwd: Path, claude_home: Path) -> subprocess.CompletedProcess:
    """A command asz printed, ``line``, run by a real ``bash -c`` in ``cwd`` as a user pastes it, ``asz`` being
    ``python -m asz_core.cli.main`` of this checkout (``CLAUDE_CONFIG_DIR`` the test's ``claude_home``): text output."""
    import shlex

    repo = Path(__file__).resolve().parents[1]
    env = dict(os.environ, CLAUDE_CONFIG_DIR=str(claude_home), PYTHONPATH=str(repo))
    env.pop("XDG_CONFIG_HOME", None)
    script = f'asz() {{ {shlex.quote(sys.executable)} -m asz_core.cli.main "$@"; }}\n{line}'
    return subprocess.run(["bash", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def asz_ok(*args: str) -> str:
    """What ``asz ARGS`` (run in this process, :func:`asz_in_process`) prints on stdout, asserting it exited 0 (its
    output in the failure's message)."""
    p = asz_in_process(*args)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout

def stage_upload_bodies(corpus_dir: Path, root: Path) -> bool:
    """Stage the corpus's recorded LangSmith ``/runs/batch`` upload bodies as the receiver would.

    Writes ``root/_ingest/langsmith/inbox/001.jsonl``: one line ``{"op", "id", "run"}`` per run
    of every body's ``post`` then ``patch`` list (the Python tracer's ``*runs_batch_POST.json``
    and the JS wrapper's ``*langsmith_js*.json`` under ``corpus_dir/langchain``), so that
    ``asz collect --adapter langsmith-ingest`` lands them without a receiver running.
    Returns False, writing nothing, when the corpus holds no such body.
    """
    import json

    folder = corpus_dir / "langchain"
    bodies = sorted(folder.glob("*runs_batch_POST.json")) + sorted(folder.glob("*langsmith_js*.json"))
    if not bodies:
        return False
    inbox = root / "_ingest" / "langsmith" / "inbox"
    inbox.mkdir(parents=True)
    lines = []
    for f in bodies:
        d = json.loads(f.read_text())
        doc = d.get("json", d)
        for op in ("post", "patch"):
            for run in doc.get(op, []):
                if not run.get("id") and isinstance(run.get("dotted_order"), str):  # the JS client's patch: the receiver
                    run = {**run, "id": run["dotted_order"].rsplit(".", 1)[-1].partition("Z")[2]}  # its dotted_order's end
                lines.append(json.dumps({"op": op, "id": run.get("id", ""), "run": run}))
    (inbox / "001.jsonl").write_text("\n".join(lines) + "\n")
    return True


def expected_langsmith(posts: list[dict]) -> dict[str, dict]:
    """Per session id (the folder langsmith-ingest lands it in): talks (trace ids), llm calls, tools (name -> failed
    flags) and labels, read from the posted runs themselves (project + thread key, else the trace)."""
    from asz_adapters_langchain.inbox import human_text
    from asz_adapters_langchain.naming import conversation_values, session_name, unsupplied_session

    by_id = {r["id"]: r for r in posts}
    out: dict[str, dict] = {}
    for r in posts:
        root = r
        while root.get("parent_run_id") in by_id:
            root = by_id[root["parent_run_id"]]
        md = (root.get("extra") or {}).get("metadata") or {}
        values = conversation_values(root.get("session_name", ""), md)
        sid = session_name(values) if values else unsupplied_session(root.get("session_name", ""), root["trace_id"])
        e = out.setdefault(sid, {"talks": set(), "llm": 0, "tools": {}, "labels": []})
        e["talks"].add(r["trace_id"])
        if r["run_type"] == "llm":
            e["llm"] += 1
        if r["run_type"] == "tool":
            e["tools"][r["name"]] = e["tools"].get(r["name"], []) + [bool(r.get("error"))]
        if r is root and human_text(r.get("inputs")):
            e["labels"].append(" ".join(human_text(r["inputs"]).split()))
    return out


def land_again(root: Path, session: str, kind: str = "transcript", stream: str = "main") -> int:
    """Land every record of ``session``'s ``kind`` files of ``stream`` once more, in new files after them, as a pass of an asz
    before 2026-12-02 killed between a file and its cursor did (a pass now moves the cursor past such files instead
    of landing them again) and as a third-party writer may: the same stream, ord, off and sha. Returns the records."""
    from asz_core.sessiondata import SDReader
    from asz_core.storage.layout import landed_files
    from asz_core.storage.root import SessionWriter, session_lock

    again = 0
    with session_lock(root, session, timeout=10.0):
        w = SessionWriter.open(root, session, fsync=False)
        for ln, path in landed_files(Path(root) / session):
            if ln.kind != kind:
                continue
            r = SDReader(path, decode=False)
            list(r)  # reads the header, checks the file whole
            if r.header.stream != stream:
                continue
            lines = path.read_bytes().split(b"\n")[1:-2]  # the record lines, between header and closing line
            writer = w.start(r.header)
            writer.write_encoded_lines(lines)
            w.finish(writer)
            again += len(lines)
    return again


def damage_round(root, conversation: str):
    """Change one byte of ``conversation``'s only round (a digit of its ``talks``), as a person with write access
    would; returns the round file."""
    (rf,) = sorted((root / "_conversations" / conversation / "rounds").glob("*.sf"))
    data = bytearray(rf.read_bytes())
    at = data.index(b'"talks":') + len(b'"talks":')
    data[at] = ord("9") if data[at] != ord("9") else ord("8")
    rf.chmod(0o644)
    rf.write_bytes(bytes(data))
    return rf


def cut_first_landed(root, session: str):
    """Cut ``session``'s seq-1 landed file by its last byte (its closing newline), as a disk error would; returns it.
    No landed record of the session then reads from there on, so a chain with no round that verifies cannot be read
    from the landed records in memory either (trial 29a F8): the conversation has no usable round (``unreadable``)."""
    from asz_core.storage.layout import landed_files

    _, path = landed_files(root / session)[0]
    path.chmod(0o644)
    os.truncate(path, path.stat().st_size - 1)
    path.chmod(0o444)
    return path


def asz_on_a_terminal(*args: str, columns: int, timeout: float = 120) -> tuple[list[str], str]:
    """``asz ARGS`` in a child process whose stdout is a real pseudo-terminal ``columns`` cells wide (``COLUMNS=``):
    the lines it wrote there (a progress bar's lines included) and its stderr. Raises AssertionError on a non-zero
    exit. Linux and macOS (``pty``). Forked from the pre-imported server (tests/forked.py): the width and the terminal
    are the child's own, read as the command runs."""
    import pty

    import forked

    main, child = pty.openpty()
    env = {**os.environ, "COLUMNS": str(columns), "PYTHONUNBUFFERED": "1"}
    p = forked.Popen([sys.executable, "-m", "asz_core.cli.main", *args], stdout=child, stderr=subprocess.PIPE, env=env)
    os.close(child)
    out = b""
    while True:
        try:
            got = os.read(main, 65536)
        except OSError:  # the child closed its end (EIO)
            break
        if not got:
            break
        out += got
    os.close(main)
    err = p.stderr.read().decode()
    assert p.wait(timeout) == 0, err
    return out.decode().replace("\r\n", "\n").splitlines(), err


def collect_transcript(base: Path, project: str, session: str, data: bytes) -> Path:
    """Write ``data`` as the Claude Code transcript ``base/projects/PROJECT/SESSION.jsonl`` and collect it with the
    real ``asz collect --once`` into ``base/root`` (exit 0 asserted); returns the root."""
    proj = base / "projects" / project
    proj.mkdir(parents=True)
    (proj / f"{session}.jsonl").write_bytes(data)
    root = base / "root"
    p = asz_in_process("collect", "--once", "--source", str(base / "projects"), "--root", str(root))
    assert p.returncode == 0, p.stderr
    return root


#: The environment of a collect that never reads the machine's own Claude Code home.
AWAY_HOME = {"CLAUDE_CONFIG_DIR": "/nonexistent-claude-home", "XDG_CONFIG_HOME": None}


def landed_first_lines(tmp_path: Path, transcript: Path, n: int) -> tuple[Path, Path, Path, list[bytes]]:
    """``transcript``'s first ``n`` lines written to ``tmp_path/projects/-p/<name>`` and collected into
    ``tmp_path/root`` by a real ``asz collect --once`` (asserted to exit 0), away from the machine's own home. Skips
    when ``transcript`` is absent. Returns ``(src, root, the live file, every line of transcript)``."""
    import pytest

    if not transcript.is_file():
        pytest.skip(f"the corpus is absent ({transcript})")
    src, root = tmp_path / "projects", tmp_path / "root"
    f = src / "-p" / transcript.name
    f.parent.mkdir(parents=True)
    lines = transcript.read_bytes().splitlines(keepends=True)
    f.write_bytes(b"".join(lines[:n]))
    assert asz_in_process("collect", "--once", "--source", str(src), "--root", str(root), env=AWAY_HOME).returncode == 0
    return src, root, f, lines


def rotated_source(tmp_path: Path, transcript: Path) -> dict:
    """A live log rotated after it landed (trial 19): ``transcript``'s first 60 lines written to
    ``tmp_path/projects/-p/<name>`` and collected into ``tmp_path/root``; then the file renamed to ``<name>.1`` and a
    new one started in its place with the lines after them, fewer bytes than landed; one more ``collect --once``
    finds it in conflict (asserted). Skips when ``transcript`` is absent. Returns ``{src, root, file, landed, size}``
    (``landed``: bytes landed, ``size``: the new file's)."""
    src, root, f, lines = landed_first_lines(tmp_path, transcript, 60)
    away = AWAY_HOME
    landed = f.stat().st_size
    f.rename(f.with_name(f.name + ".1"))
    later = b""
    for line in lines[60:]:  # the rotated log's first lines, while shorter than what landed
        if len(later) + len(line) >= landed:
            break
        later += line
    assert later
    f.write_bytes(later)
    p = asz_in_process("collect", "--once", "--source", str(src), "--root", str(root), env=away)
    assert p.returncode == 1 and "conflicts=1" in p.stdout, p.stdout + p.stderr
    return {"src": src, "root": root, "file": f, "landed": landed, "size": len(later)}


def timeless_traces(root: Path) -> list[str]:
    """Two LangSmith chain runs (``x``, ``y``) with one model call each (claude-sonnet-4-5, 10 in, 2 out) and no time
    at all, staged in ``root``'s ingest inbox as the receiver writes them and landed by the real ``asz collect --once
    --adapter langsmith-ingest``: two conversations whose ids share ``ls-trace-`` (asserted). Returns their ids, sorted."""
    import json

    inbox = root / "_ingest" / "langsmith" / "inbox"
    inbox.mkdir(parents=True)
    runs = [{"op": "post", "id": i, "run": {"id": i, "name": "agent", "run_type": "chain",
                                            "inputs": {"messages": [{"role": "user", "content": f"hello from {i}"}]}}}
            for i in "xy"]
    runs += [{"op": "post", "id": f"{i}-llm", "run": {
        "id": f"{i}-llm", "name": "ChatModel", "run_type": "llm", "trace_id": i, "parent_run_id": i,
        "extra": {"metadata": {"ls_model_name": "claude-sonnet-4-5"}},
        "outputs": {"generations": [[{"message": {"kwargs": {"content": "hi", "usage_metadata": {
            "input_tokens": 10, "output_tokens": 2, "total_tokens": 12}}}}]]}}} for i in "xy"]
    (inbox / "001.jsonl").write_text("".join(json.dumps(r) + "\n" for r in runs))
    p = asz_in_process("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    ids = sorted(p.name for p in root.iterdir() if not p.name.startswith("_"))
    assert len(ids) == 2 and ids[0][:9] == ids[1][:9] == "ls-trace-", ids
    return ids


def code_at(commit: str, dest: Path) -> Path:
    """``asz_core`` and ``asz_adapters_claude`` as they were at ``commit`` (a ``git archive`` of this repository),
    unpacked under ``dest/code``: run them with ``PYTHONPATH`` set to the path returned, in a child. Skips the test
    when git is not installed or the history does not hold ``commit``."""
    import shutil
    import tarfile

    import pytest

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    tar = dest / "code.tar"
    repo = Path(__file__).resolve().parents[1]
    p = subprocess.run(["git", "-C", str(repo), "archive", "-o", str(tar), commit, "asz_core", "asz_adapters_claude"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        pytest.skip(f"no history to archive {commit} from: {p.stderr.strip()}")
    with tarfile.open(tar) as t:
        t.extractall(dest / "code", filter="data")
    return dest / "code"


def pip_installed_plugins(base: Path, dists: list[tuple[str, str, str, str]]) -> Path:
    """Each ``(distribution, module, source, entry-point name)`` of ``dists`` made a throwaway distribution (version
    1.2.3, the one module, an ``asz`` entry point naming it) under ``base`` and installed by a real pip into
    ``base/site``; returns that folder, for a child's ``PYTHONPATH``. Raises AssertionError with pip's stderr when
    pip fails."""
    import textwrap

    paths = []
    for name, module, source, ep_name in dists:
        pkg = base / name
        pkg.mkdir()
        (pkg / f"{module}.py").write_text(textwrap.dedent(source))
        (pkg / "pyproject.toml").write_text(textwrap.dedent(f"""
            [build-system]
            requires = ["setuptools>=61"]
            build-backend = "setuptools.build_meta"
            [project]
            name = "{name}"
            version = "1.2.3"
            [project.entry-points.asz]
            {ep_name} = "{module}"
            [tool.setuptools]
            py-modules = ["{module}"]
            """))
        paths.append(str(pkg))
    target = base / "site"
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index",
                           "--target", str(target), *paths], capture_output=True, text=True)
    assert proc.returncode == 0, f"pip install of the throwaway distributions failed: {proc.stderr}"
    return target


def fork_or_skip() -> None:
    """Skip where the platform has no ``fork``; fail, naming them, where other threads of this process stop asz from
    forking its workers (:func:`asz_core.collect.workers.can_fork`): a thread an earlier test left running in this
    worker, which would otherwise turn every later two-process test into a skip or a one-process run unseen (session
    34's suite: a page server's request thread)."""
    import multiprocessing
    import threading
    import time

    import pytest

    from asz_core.collect.workers import can_fork

    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("this platform cannot fork worker processes")
    end = time.monotonic() + 15  # a stopped gRPC receiver's threads end after its grace (tests/export)
    while not can_fork() and time.monotonic() < end:
        time.sleep(0.1)
    others = [t.name for t in threading.enumerate() if t is not threading.main_thread()]
    assert can_fork(), f"threads an earlier test left running stop the fork of asz's workers: {others}"


def usage_json(u):
    """A usage object ``u`` (``{"in", "out", "cache_read", "cache_write"}``, ``cache_write_1h`` where some) as ``asz
    usage --json`` gives each row's and the total's: with ``cache_write_1h`` always, 0 where none, or null where every
    count is null (no token recorded; trial 38b F4: one set of keys on every row). Anything else as it is."""
    if not isinstance(u, dict):
        return u
    fill = None if u and all(v is None for v in u.values()) else 0
    return {**{k: u.get(k, fill) for k in ("in", "out", "cache_read", "cache_write", "cache_write_1h")}, **u}


#: CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER: what lets root write whatever the mode bits say.
_OVERRIDES = (1, 2, 3)
_PR_CAPBSET_DROP = 24


def as_reader() -> None:
    """A child's ``preexec_fn``: as root, drop from the bounding set the capabilities that ignore mode bits, so the
    program run is held to them as any user is (a ``chmod -R a-w`` root then refuses its writes: Permission denied).
    Nothing for another user. A test checks that writes are refused all the same and skips when they are not."""
    import ctypes

    if os.geteuid() == 0:
        libc = ctypes.CDLL(None, use_errno=True)
        for cap in _OVERRIDES:
            libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0)
