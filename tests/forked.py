"""Real ``asz`` processes forked from one pre-imported server: ``python -m asz_core.cli.main ARGS`` without the
interpreter's start-up and imports (about 0.4 s of CPU a child).

:class:`Popen` is :class:`subprocess.Popen` (pipes, ``communicate``, ``text``, ``wait``/``poll``/``kill``/
``send_signal``, ``start_new_session``) whose child comes from the standard library's fork server
(``multiprocessing``'s ``forkserver`` context, :func:`multiprocessing.set_forkserver_preload` with the asz command
modules and the adapters' plugins), not from ``fork`` + ``exec``. The child is a real process: its own pid, the real
SIGKILL/SIGTERM/SIGINT, its exit status (``returncode``: the exit code, ``-N`` for signal N, as subprocess gives),
stdin/stdout/stderr on the files or pipes asked for (every other descriptor closed), its own session with
``start_new_session``, the working directory and environment asked for applied before the command runs. It is the
fork server's child, not the test's: the server reaps it and passes its status on (``returncode`` is only ever that
status; a child whose status was lost raises rather than reading as exit 0).

Before the command runs the child is made what a fresh ``python -m asz_core.cli.main`` would be where asz can tell:
``os.environ`` replaced, ``time.tzset()`` (``TZ``), ``LC_CTYPE`` from the environment, new ``sys.stdin``/``stdout``/
``stderr`` (the locale's encoding or ``PYTHONIOENCODING``; stdout block-buffered and stderr line-buffered on a pipe or
file), ``sys.argv`` and ``__main__`` as ``-m`` sets them (:func:`runpy.run_module`), SIGINT, SIGTERM and SIGCHLD back
to Python's defaults, multiprocessing's view of the process that of a main process (``parent_process()`` is None:
asz tells its command's process from its workers by it). No module the server preloads reads the environment at its
import (no module-level ``os.environ``/``getenv``/home read: tests/test_forked.py scans every asz module the preload
loads; :mod:`asz_core.view.guard` and :mod:`asz_core.export.receive_http` read their timeouts so, and are left to a
child to import with its own environment), so what the server imported with the test's environment holds for any
child. At the end it exits as the interpreter does:
``SystemExit``'s code (None 0, text printed and 1), an uncaught exception's traceback and 1, an uncaught
``KeyboardInterrupt`` by SIGINT; non-daemon threads joined, ``atexit`` handlers run, stdout flushed (120 when that
fails).

What it is not, so a test about one of these keeps a fresh interpreter (``[sys.executable, "-m", ...]``): the
interpreter's start-up itself (import time, Typer not loaded by ``verify``'s light forms, a Ctrl-C or SIGTERM during
the imports), plugins or entry points found on a child's own ``sys.path``/``PYTHONPATH`` (the child has the server's
``sys.path`` and modules), another version of the code (a checkout, an older commit, a pip install), ``setpriv``
or any other program, interpreter flags (``-X``, ``PYTHONUTF8``, ``PYTHONHASHSEED``: every child of a server shares
the server's hash seed), a process named from its ``/proc/PID/cmdline`` (a lock's holder in a refusal: a forked
child's command line is the server's).

:func:`server_cpu` gives the CPU (s) the server and the children it reaped have used, for tests/cpu_profile.py; each
child started adds one to :data:`STARTS`.
"""

from __future__ import annotations

import atexit
import io
import locale
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
import traceback
from multiprocessing import context, forkserver, popen_forkserver, process, reduction, util

#: The modules the server imports once: the command line, every command module, the adapters' plugins, and what
#: the commands import only when they run: Typer's pydantic adapters (``typer.main`` builds the command line with
#: them at each start, about 70 ms of CPU a child), the parse, verify, search, export and usage code. Not
#: :mod:`asz_core.view.guard` nor :mod:`asz_core.export.receive_http` (nor the page server and the receiver, which
#: import them): they read the environment at their import (tests/test_forked.py), so a child imports them itself.
PRELOAD = ["asz_core.cli.main", "asz_core.cli.entry", "asz_core.cli.stopping", "asz_core.cli.quick",
           *(f"asz_core.cli.{m}" for m in ("adapters_cmd", "collect_cmd", "verify_cmd", "parse_cmd", "scenario_cmd",
                                            "view_cmd", "server_cmd", "conversations_cmd", "push_cmd", "senders_cmd",
                                            "search_cmd", "export_cmd", "usage_cmd", "retention_cmd", "erase_cmd",
                                            "usage_tools", "usage_flat")),
           "asz_core.collect.collector", "asz_core.collect.workers", "asz_core.plugins.manager",
           "asz_adapters_claude.plugin", "asz_adapters_kiro.plugin", "asz_adapters_langchain.plugin",
           "typer._adapters", "pydantic.plugin._loader", "asz_core.flow.parse", "asz_core.verify.walk",
           "asz_core.reading.search", "asz_core.reading.export", "asz_core.reading.prose",
           "asz_core.reading.senders_seen",
           # What a collect, a parse and a verify import when they run (session 39: a forked ``asz collect --once``
           # spent 0.054 s of CPU, 0.017 s with these, most of the difference the entry points' scan importing
           # importlib_metadata's email parser and zipp; each killed collector of the kill loops starts so).
           "asz_core.collect.session_pass", "asz_core.collect.other_adapter", "asz_core.collect.provider_bodies",
           "asz_core.collect.reset", "asz_core.collect.said_lines", "asz_core.collect.fit", "asz_core.cli.list_rows",
           "asz_core.cli.filemode", "asz_core.sessiondata.writer", "asz_core.sessiondata.providerbody_join",
           "asz_core.storage.describe", "asz_core.storage.frozen", "asz_core.storage.landing", "asz_core.plugins.packages",
           "asz_core.flow.assemble", "asz_core.reading.row_cache", "asz_core.reading.figures", "asz_core.verify.damage",
           "asz_core.verify.session_files", "asz_core.flow.verify_chain", "asz_core.view.executions_check",
           "asz_adapters_claude.observer_plugin", "asz_adapters_claude.provider_plugin", "asz_core._commit",
           "_strptime", "email.parser", "email.policy", "zipp", "importlib_metadata._adapters",
           "importlib.resources.readers"]
#: The argument list that names the command in a fresh interpreter; :class:`Popen` takes it and runs it forked.
MODULE = "asz_core.cli.main"

#: Children started by :class:`Popen` in this process (the profile's ``forked`` count).
STARTS = [0]

#: multiprocessing's class of a process Python started itself (the module deletes its name): taken at this module's
#: import, which in a child comes before multiprocessing makes it the server's ``Process``.
_MAIN_PROCESS = type(process.current_process())
_ctx = multiprocessing.get_context("forkserver")
_ctx.set_forkserver_preload(PRELOAD)


class _ServerPopen(popen_forkserver.Popen):
    """The fork server's launch (``popen_forkserver.Popen._launch``) with the child's preparation cut to ``sys.path``
    and the key: the child neither imports this process's ``__main__`` (a script, pytest) again nor takes its
    ``sys.argv`` or working directory (:func:`_child` sets its own)."""

    def _launch(self, process_obj):
        path = [process.ORIGINAL_DIR if p == "" else p for p in sys.path]
        prep_data = {"name": process_obj._name, "sys_path": path, "authkey": process.current_process().authkey}
        buf = io.BytesIO()
        context.set_spawning_popen(self)
        try:
            reduction.dump(prep_data, buf)
            reduction.dump(process_obj, buf)
        finally:
            context.set_spawning_popen(None)
        self.sentinel, w = forkserver.connect_to_new_process(self._fds)
        _parent_w = os.dup(w)
        self.finalizer = util.Finalize(self, util.close_fds, (_parent_w, self.sentinel))
        with open(w, "wb", closefd=True) as f:
            f.write(buf.getbuffer())
        self.pid = forkserver.read_signed(self.sentinel)


class _Process(context.ForkServerProcess):
    @staticmethod
    def _Popen(process_obj):
        return _ServerPopen(process_obj)


class _Fd:
    """A descriptor sent to the fork server with the request (``SCM_RIGHTS``, multiprocessing's ``DupFd``); the child
    gets it as an int."""

    def __init__(self, fd: int):
        self.fd = fd

    def __reduce__(self):
        return (_detach, (reduction.DupFd(self.fd),))


def _detach(dup) -> int:
    return dup.detach()


def asz_args(args) -> list[str]:
    """The arguments after ``python -m asz_core.cli.main`` in ``args``; ValueError for any other command line."""
    code, argv = command_line(args)
    if code is not None:
        raise ValueError(f"not an asz command line: {[os.fspath(a) for a in args][:3]}")
    return argv


def command_line(args) -> tuple[str | None, list[str]]:
    """``(None, ARGS)`` for ``[python, "-m", "asz_core.cli.main", *ARGS]``; ``(CODE, ARGS)`` for ``[python, "-c", CODE,
    *ARGS]`` (a program that runs asz's console entry, such as ``from asz_core.cli.entry import main; main()``: run as
    ``python -c`` runs it, in a new ``__main__`` with ``sys.argv`` ``["-c", *ARGS]``). ValueError for any other."""
    args = [os.fspath(a) for a in args]
    if len(args) >= 3 and args[1:3] == ["-m", MODULE]:
        return None, args[3:]
    if len(args) >= 3 and args[1] == "-c":
        return args[2], args[3:]
    raise ValueError(f"not an asz command line: {args[:3]}")


class Popen(subprocess.Popen):
    """:class:`subprocess.Popen` of ``[sys.executable, "-m", "asz_core.cli.main", *ARGS]`` (or ``[sys.executable, "-c",
    CODE, *ARGS]``, :func:`command_line`) whose child is forked from the pre-imported server (module docstring).
    Raises ValueError for another command line, or for ``pass_fds``,
    ``preexec_fn``, ``shell``, ``user``/``group``/``umask`` (not supported)."""

    def _execute_child(self, args, executable, preexec_fn, close_fds, pass_fds, cwd, env, startupinfo, creationflags,
                       shell, p2cread, p2cwrite, c2pread, c2pwrite, errread, errwrite, restore_signals, gid, gids,
                       uid, umask, start_new_session, process_group=-1):
        try:
            if pass_fds or preexec_fn or shell or gid is not None or gids is not None or uid is not None or umask >= 0 \
                    or process_group not in (-1, None):
                raise ValueError("forked.Popen: pass_fds, preexec_fn, shell, user, group, umask are not supported")
            code, argv = command_line(args)
            fds = [p2cread if p2cread != -1 else 0, c2pwrite if c2pwrite != -1 else 1, errwrite if errwrite != -1 else 2]
            ready_r, ready_w = os.pipe()
            try:
                proc = _Process(target=_child, daemon=True,
                                args=(code, argv, os.fspath(cwd) if cwd is not None else os.getcwd(),
                                      dict(os.environ if env is None else env), [_Fd(fd) for fd in [*fds, ready_w]],
                                      bool(start_new_session)))
                proc.start()
                os.close(ready_w)
                ready_w = -1
                self._mp = proc
                self.pid = proc.pid
                self._child_created = True
                STARTS[0] += 1
                said = b""
                while chunk := os.read(ready_r, 4096):  # as exec's success: set up, or why not
                    said += chunk
            finally:
                os.close(ready_r)
                if ready_w != -1:
                    os.close(ready_w)
            if said != b"ok":
                self.wait()
                raise OSError(f"forked.Popen: the child could not start: {said.decode(errors='replace')}")
        finally:
            self._close_pipe_fds(p2cread, p2cwrite, c2pread, c2pwrite, errread, errwrite)

    def _internal_poll(self, _deadstate=None, **_):
        if self.returncode is None:
            self.returncode = self._mp.exitcode
        return self.returncode

    def _wait(self, timeout):
        if self.returncode is None:
            self._mp.join(timeout)
            if self._mp.exitcode is None:
                raise subprocess.TimeoutExpired(self.args, timeout)
            self.returncode = self._mp.exitcode
        return self.returncode


def run(args, *, input=None, capture_output=False, timeout=None, check=False, **kw) -> subprocess.CompletedProcess:
    """:func:`subprocess.run` with :class:`Popen`."""
    if capture_output:
        kw["stdout"] = kw["stderr"] = subprocess.PIPE
    if input is not None:
        kw["stdin"] = subprocess.PIPE
    with Popen(args, **kw) as p:
        try:
            out, err = p.communicate(input, timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            raise
        code = p.poll()
    if check and code:
        raise subprocess.CalledProcessError(code, p.args, out, err)
    return subprocess.CompletedProcess(p.args, code, out, err)


def server_cpu() -> float:
    """CPU seconds (user + sys) the fork server of this process has used and its reaped children have (0.0 when none
    runs): ``utime stime cutime cstime`` of ``/proc/PID/stat``."""
    pid = getattr(forkserver._forkserver, "_forkserver_pid", None)
    if not pid:
        return 0.0
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def _stdio(fd: int, write: bool, line_buffering: bool, errors: str) -> io.TextIOWrapper:
    """A standard stream on ``fd`` as the interpreter makes one at start-up (not a terminal: buffered)."""
    enc, _, errs = os.environ.get("PYTHONIOENCODING", "").partition(":")
    if not enc:
        enc = "utf-8" if sys.flags.utf8_mode else locale.getencoding()
    raw = io.FileIO(fd, "wb" if write else "rb", closefd=False)
    buf = io.BufferedWriter(raw) if write else io.BufferedReader(raw)
    return io.TextIOWrapper(buf, encoding=enc, errors=errs or errors, line_buffering=line_buffering)


def _as_main_process() -> None:
    """multiprocessing's state of a process Python started itself: a ``MainProcess``, no parent, no children."""
    import itertools
    from multiprocessing import resource_tracker

    process._current_process = _MAIN_PROCESS()
    process._parent_process = None
    process._children = set()
    process._process_counter = itertools.count(1)
    resource_tracker._resource_tracker._fd = None
    resource_tracker._resource_tracker._pid = None


def _child(program: str | None, argv: list[str], cwd: str, env: dict, fds: list[int], new_session: bool) -> None:
    """The forked child: become ``python -m asz_core.cli.main ARGV`` (``python -c PROGRAM ARGV`` when ``program`` is given;
    module docstring) and exit as it would. Never returns."""
    code = 1
    *fds, ready = fds
    try:
        if new_session:
            os.setsid()
        high = [os.dup(fd) for fd in fds]  # moved out of 0-2 first: a target may be another's source
        for n, fd in enumerate(high):
            os.dup2(fd, n)
        ready = os.dup2(ready, 3)
        os.closerange(4, min(os.sysconf("SC_OPEN_MAX"), 1 << 16))
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)
        time.tzset()
        try:
            locale.setlocale(locale.LC_CTYPE, "")
        except locale.Error:
            pass
        for sig, how in ((signal.SIGINT, signal.default_int_handler), (signal.SIGTERM, signal.SIG_DFL),
                         (signal.SIGCHLD, signal.SIG_DFL), (signal.SIGPIPE, signal.SIG_IGN)):
            signal.signal(sig, how)
        signal.pthread_sigmask(signal.SIG_SETMASK, set())
        _as_main_process()
        strict = "surrogateescape" if locale.setlocale(locale.LC_CTYPE) in ("C", "POSIX") else "strict"
        sys.stdin = sys.__stdin__ = _stdio(0, False, False, strict)
        sys.stdout = sys.__stdout__ = _stdio(1, True, False, strict)
        sys.stderr = sys.__stderr__ = _stdio(2, True, True, "backslashreplace")
        sys.argv = ["-m" if program is None else "-c", *argv]  # -m: [0] becomes the module's path (_run_as_main)
        os.write(ready, b"ok")
        os.close(ready)
    except BaseException as exc:
        os.write(ready, repr(exc).encode())
        os._exit(1)
    try:
        try:
            _run_as_main(program)
            code = 0
        except SystemExit as exc:
            code = _exit_code(exc.code)
        except KeyboardInterrupt:
            traceback.print_exc()
            _finish()
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
            code = 130
        except BaseException:
            traceback.print_exc()
            code = 1
        code = _finish(code)
    finally:
        os._exit(code)


def _run_as_main(program: str | None = None) -> None:
    """Run the command module's code as ``__main__``, as ``python -m`` does (``sys.argv[0]``, ``__spec__``,
    ``__package__``), or ``program`` as ``python -c`` does (a ``__main__`` without a file or spec, ``<string>``); its
    imports are the server's."""
    import importlib.machinery
    import importlib.util
    import types

    if program is not None:
        main = types.ModuleType("__main__")
        main.__dict__.update(__builtins__=__builtins__, __loader__=importlib.machinery.BuiltinImporter)
        sys.modules["__main__"] = main
        exec(compile(program, "<string>", "exec"), main.__dict__)
        return
    spec = importlib.util.find_spec(MODULE)
    code = spec.loader.get_code(MODULE)
    main = types.ModuleType("__main__")
    main.__dict__.update(__file__=spec.origin, __cached__=spec.cached, __spec__=spec, __loader__=spec.loader,
                         __package__=spec.parent, __builtins__=__builtins__)
    sys.modules["__main__"] = main
    sys.argv[0] = spec.origin
    exec(code, main.__dict__)


def _exit_code(value) -> int:
    """The exit status ``SystemExit(value)`` gives an interpreter."""
    if value is None:
        return 0
    if isinstance(value, int):
        return value & 0xFF
    try:
        sys.stderr.write(f"{value}\n")
    except Exception:
        pass
    return 1


def _finish(code: int = 0) -> int:
    """The interpreter's own end: non-daemon threads joined, ``atexit`` handlers, standard streams flushed."""
    try:
        threading._shutdown()
    except BaseException:
        traceback.print_exc()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            if stream is sys.stdout:
                code = 120
    return code
