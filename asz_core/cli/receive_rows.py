"""The list rows ``asz receive`` keeps behind its writes (fix50c; trial 49d F3, close49 "Not done").

A root a collect fills has its ``asz ls`` rows and ``asz usage`` summaries kept by the pass (docs/reading.md, After a
collect: :func:`asz_core.cli.list_rows.keep_list_rows`). A root ``asz receive`` filled kept none, so its first reader
counted every file (13.5-16 s on 271 conversations; later reads about 3 s). Now the receiver keeps them too, as a
collect pass does, from the same code, and never while a push waits on it:

- a request is answered once its files are landed and recorded, as before: the request only tells the keeper which
  files it held (:func:`~asz_core.storage.landed_count.watch_landed`, a set add), the keeper waits for no request;
- once no file has landed for :data:`QUIET` seconds, the keeper's child (``python -m asz_core.cli.receive_rows ROOT``,
  at a lower priority, in a session of its own, one for the receiver's life, started again only when it ended) is
  handed, as a line on its stdin, the sessions whose files landed since the last run, and keeps the rows of the
  conversations of those sessions (and of those a label landed in them titles:
  :func:`~asz_core.cli.list_rows.keep_list_rows`) whose kept ones are not current; what lands meanwhile is handed to
  the next run. A push's runs (6-28 on a 200 MB push, its requests 2-5 s apart) so count each landed conversation
  about once, with no interpreter started for each, not every kept row of the root each run in a new process
  (fix50c's c73dac6e; fix50j);
- the receiver starts with one run over every conversation of the root (``*``), so rows a receiver stopped or killed
  before keeping are kept then; a run that did not end well (stopped, failed) hands its sessions to the next.

Derived data only (``_index/summaries.sqlite``): each row is committed as it is counted; a crash at any point (the
receiver's or the child's; the child ends when the receiver is gone) leaves rows to count again, by the next run or
the next reader, and loses nothing. The rows are keyed as the readers key them: the configuration ``asz receive`` was
given (``--config``, else ``./asz.yaml``), its ``view.hide`` and prices.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Optional, TextIO

from ..storage.landed_count import watch_landed
from ..storage.layout import CONVERSATIONS

__all__ = ["QUIET", "RowKeeper"]

#: Seconds with no file landed before the rows are kept. A push whose requests come further apart has them kept in
#: steps while it runs, each step counting what landed since (the rows kept before are read, not counted).
QUIET = 1.0
#: Seconds between two looks at whether a landing marked rows to keep (:meth:`RowKeeper._landed`) :data:`QUIET`
#: seconds ago or more.
LOOK = 0.25
#: The child's niceness added (a push landing meanwhile comes first).
NICE = 10
#: The line the child ends each run's lines with.
DONE = "done"


class RowKeeper:
    """Keeps the list rows of ``root`` behind the receiver's writes (module docstring): :meth:`start`, then
    :meth:`stop` (a child still counting is stopped: what it did not keep, the next run or reader counts).
    ``config``: ``asz receive``'s ``--config`` (None: the default). Lines on ``err``: the child's notes (rows not
    kept, and why), else unless ``quiet`` ``[HH:MM:SS] rows: kept the list rows of N conversation(s) …`` after each run."""

    def __init__(self, root: Path, config: Optional[Path], err: TextIO, quiet: bool = False):
        self.root, self.config, self.err, self.quiet = Path(root), config, err, quiet
        self._cond = threading.Condition()
        self._dirty, self._last, self._stopping = True, 0.0, False  # dirty at start: rows a stopped receiver left
        self._all, self._names = True, set()  # what the next run counts again: every stale row (at start), or these
        self._child: Optional[subprocess.Popen] = None
        self._unwatch = watch_landed(self._landed)
        self._thread = threading.Thread(target=self._run, name="asz-receive-rows", daemon=True)

    def start(self) -> "RowKeeper":
        self._thread.start()
        return self

    def stop(self) -> None:
        if not self._thread.is_alive():
            return  # never started (the receiver stopped before its first line), or ended
        self._unwatch()
        with self._cond:
            self._stopping = True
            child = self._child
            self._cond.notify_all()
        if child is not None and child.poll() is None:
            child.terminate()
            try:
                child.wait(timeout=5)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        self._thread.join(timeout=10)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._stopping and (not self._dirty or time.monotonic() - self._last < QUIET):
                    self._cond.wait(timeout=LOOK)
                if self._stopping:
                    return
                self._dirty, every, names, self._all, self._names = False, self._all, self._names, False, set()
                if not _any_conversation(self.root):
                    continue  # nothing to list yet (a new root): no child
                child = self._child_up()
                if child is None:
                    continue  # no process to be had (said): the next reader counts them
            out, code = _asked(child, "*" if every else sorted(names))
            with self._cond:
                if code is not None:  # not kept (stopped, failed): counted again by the next run, which a landing starts
                    self._all, self._names = self._all or every, self._names | names
                    self._child = None
                self._cond.notify_all()
            if self._stopping:
                return  # stopped mid-run: what it did not keep, the next run or reader counts
            self._tell(out, code or 0)

    def _child_up(self) -> Optional[subprocess.Popen]:
        """The child, started when there is none (or it ended): one for the receiver's life, each run a line on its
        stdin (under the lock). None, said, when no process is to be had."""
        if self._child is not None and self._child.poll() is None:
            return self._child
        cmd = [sys.executable, "-m", __name__, str(self.root)] + ([str(self.config)] if self.config else [])
        try:
            self._child = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                           stderr=subprocess.STDOUT, start_new_session=True)
        except OSError as exc:
            self._said(f"note: {self.root}: the list rows were not kept ({exc}); asz ls counts them")
            self._child = None
        return self._child

    def _tell(self, out: str, code: int) -> None:
        """Say a run's lines: the child's notes (rows not kept, and why), else its ``kept`` line unless quiet."""
        lines = [x for x in out.splitlines() if x.startswith("note: ")]  # the keeping's own (list_rows.not_kept)
        if code != 0 and not lines:
            lines.append(f"note: {self.root}: the list rows were not kept (exit {code}); asz ls counts them")
        lines += [x for x in out.splitlines() if x.startswith("kept ")] if not lines and not self.quiet else []
        for line in lines:
            self._said(line)

    def _landed(self, files: Optional[list[str]]) -> None:
        """A request landed ``files`` (paths under the root; None: not said): their conversations' rows are counted
        again once :data:`QUIET` seconds pass with no landing. Called in the request's thread: a set add, no wait."""
        if files is not None and not files:
            return  # a request of no file (a push's probe): nothing changed
        with self._cond:
            if files is None:
                self._all = True
            else:
                self._names.update(_named(f) for f in files)
            self._dirty, self._last = True, time.monotonic()

    def _said(self, line: str) -> None:
        from ..export.receive import said

        try:
            said(self.err, line if not line.startswith("kept ") else "rows: " + line)
        except (OSError, ValueError):
            pass


def _named(rel: str) -> str:
    """The session a landed file ``rel`` belongs to: its first folder, or a round's conversation
    (``_conversations/<id>/rounds/…``), as the pusher names it (:func:`asz_core.export.push_refusals`)."""
    parts = rel.split("/")
    return parts[1] if parts[0] == CONVERSATIONS and len(parts) > 1 else parts[0]


def _landed_in(root: Path, names: Optional[set[str]]) -> list[str]:
    """The conversations of ``root`` (:func:`~asz_core.flow.listed.list_conversations`) whose rows the files of
    ``names`` (:func:`_named`; None: all of them) may change: named so, or whose newest round names such a session
    (its header, one line read; no kept row read)."""
    from ..flow.listed import list_conversations
    from ..view.rows import head_session

    ids = list_conversations(root)
    if names is None:
        return ids
    return [c for c in ids if c in names or head_session(root, c).split("/")[0] in names]


def _any_conversation(root: Path) -> bool:
    """Whether ``root`` holds a conversation's folder (a round written or landed)."""
    try:
        with os.scandir(root / CONVERSATIONS) as it:
            return any(True for _ in it)
    except OSError:
        return False


def _orphaned(parent: int) -> None:
    """End this process once its parent (the receiver) is gone: a killed receiver's child does not outlive it."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


def _asked(child: subprocess.Popen, told) -> tuple[str, Optional[int]]:
    """One run of ``child``: ``told`` (``"*"``, or the sessions landed since) written as a JSON line on its stdin, its
    lines read up to its ``done`` line: ``(those lines, None)``; ``(what it said, its exit status)`` when it ended
    first (stopped, failed)."""
    lines: list[str] = []
    try:
        child.stdin.write(json.dumps(told).encode("utf-8", "surrogateescape") + b"\n")
        child.stdin.flush()
        for raw in child.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if line == DONE:
                return "\n".join(lines), None
            lines.append(line)
    except (OSError, ValueError):  # its stdin closed: it ended
        pass
    return "\n".join(lines), child.wait()


def main(argv: list[str]) -> int:
    """The child, for its receiver's life: keep the rows of ``argv[0]`` (a root), with ``argv[1]`` as the
    configuration when given, once for each line on stdin (``"*"``: every conversation; else a JSON list of the sessions
    landed since: their conversations, :func:`_landed_in`), of those whose kept ones are not current; print ``kept the
    list rows of N conversation(s) (T s)``, then :data:`DONE`. Ends at the end of its stdin (its receiver gone)."""
    try:
        os.nice(NICE)
    except OSError:
        pass
    threading.Thread(target=_orphaned, args=(os.getppid(),), daemon=True).start()
    from .list_rows import keep_list_rows
    from ..config import ConfigError, load_config

    root = Path(argv[0])
    try:
        cfg = load_config(Path(argv[1]) if len(argv) > 1 else None)
    except ConfigError as exc:  # asz receive read it at its start: changed since
        print(f"note: {root}: the list rows were not kept (configuration: {exc}); asz ls counts them", flush=True)
        return 1
    for line in sys.stdin:
        told, began = json.loads(line), time.monotonic()
        ids = _landed_in(root, None if told == "*" else set(told))
        if ids:
            keep_list_rows(root, cfg, ids, 1)
        print(f"kept the list rows of {len(ids)} conversation(s) for asz ls and asz usage "
              f"({time.monotonic() - began:.1f} s)\n{DONE}", flush=True)
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    sys.exit(main(sys.argv[1:]))
