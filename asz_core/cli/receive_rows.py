"""The list rows ``asz receive`` keeps behind its writes (fix50c; trial 49d F3, close49 "Not done").

A root a collect fills has its ``asz ls`` rows and ``asz usage`` summaries kept by the pass (docs/reading.md, After a
collect: :func:`asz_core.cli.list_rows.keep_list_rows`). A root ``asz receive`` filled kept none, so its first reader
counted every file (13.5-16 s on 271 conversations; later reads about 3 s). Now the receiver keeps them too, as a
collect pass does, from the same code, and never while a push waits on it:

- a request is answered once its files are landed and recorded, as before: the keeper only sees, four times a
  second, that the process changed the root's landed files (:func:`~asz_core.storage.landed_count.landed_count`);
- once no file has landed for :data:`QUIET` seconds, a child process (``python -m asz_core.cli.receive_rows ROOT``,
  at a lower priority, in a session of its own) keeps the rows of every conversation of the root whose kept ones are
  not current (:func:`~asz_core.reading.listing.keep_rows` counts only those: a row kept for the same files is
  read, not counted again); what lands meanwhile marks the root again, for the next run;
- the receiver starts with one such run, so rows a receiver stopped or killed before keeping are kept then.

Derived data only (``_index/summaries.sqlite``): each row is committed as it is counted; a crash at any point (the
receiver's or the child's; the child ends when the receiver is gone) leaves rows to count again, by the next run or
the next reader, and loses nothing. The rows are keyed as the readers key them: the configuration ``asz receive`` was
given (``--config``, else ``./asz.yaml``), its ``view.hide`` and prices.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Optional, TextIO

from ..storage.landed_count import landed_count

__all__ = ["QUIET", "RowKeeper"]

#: Seconds with no file landed before the rows are kept. A push whose requests come further apart has them kept in
#: steps while it runs, each step counting what landed since (the rows kept before are read, not counted).
QUIET = 1.0
#: Seconds between two looks at whether the process landed files.
LOOK = 0.25
#: The child's niceness added (a push landing meanwhile comes first).
NICE = 10


class RowKeeper:
    """Keeps the list rows of ``root`` behind the receiver's writes (module docstring): :meth:`start`, then
    :meth:`stop` (a child still counting is stopped: what it did not keep, the next run or reader counts).
    ``config``: ``asz receive``'s ``--config`` (None: the default). Lines on ``err``: the child's notes (rows not
    kept, and why), else unless ``quiet`` ``[HH:MM:SS] rows: kept the list rows of N conversation(s) …`` after each run."""

    def __init__(self, root: Path, config: Optional[Path], err: TextIO, quiet: bool = False):
        self.root, self.config, self.err, self.quiet = Path(root), config, err, quiet
        self._cond = threading.Condition()
        self._dirty, self._last, self._stopping = True, 0.0, False  # dirty at start: rows a stopped receiver left
        self._seen = landed_count()
        self._child: Optional[subprocess.Popen] = None
        self._thread = threading.Thread(target=self._run, name="asz-receive-rows", daemon=True)

    def start(self) -> "RowKeeper":
        self._thread.start()
        return self

    def stop(self) -> None:
        if not self._thread.is_alive():
            return  # never started (the receiver stopped before its first line), or ended
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
                while not self._stopping and (not self._looked() or time.monotonic() - self._last < QUIET):
                    self._cond.wait(timeout=LOOK)
                if self._stopping:
                    return
                self._dirty = False
                if not _any_conversation(self.root):
                    continue  # nothing to list yet (a new root): no child
                cmd = [sys.executable, "-m", __name__, str(self.root)] + ([str(self.config)] if self.config else [])
                try:
                    self._child = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                                   stderr=subprocess.STDOUT, start_new_session=True)
                except OSError as exc:  # no process to be had: the next reader counts them
                    self._said(f"note: {self.root}: the list rows were not kept ({exc}); asz ls counts them")
                    self._child = None
                    continue
            out = self._child.communicate()[0].decode("utf-8", "replace")
            with self._cond:
                code, self._child = self._child.returncode, None
                self._cond.notify_all()
            if self._stopping:
                return  # stopped mid-run: what it did not keep, the next run or reader counts
            lines = [x for x in out.splitlines() if x.startswith("note: ")]  # the keeping's own (list_rows.not_kept)
            if code != 0 and not lines:
                lines.append(f"note: {self.root}: the list rows were not kept (exit {code}); asz ls counts them")
            lines += [x for x in out.splitlines() if x.startswith("kept ")] if not lines and not self.quiet else []
            for line in lines:
                self._said(line)

    def _looked(self) -> bool:
        """Whether there are rows to keep: the root changed since the last run (under the lock)."""
        if (n := landed_count()) != self._seen:  # a request landed files since the last look
            self._seen, self._dirty, self._last = n, True, time.monotonic()
        return self._dirty

    def _said(self, line: str) -> None:
        from ..export.receive import said

        try:
            said(self.err, line if not line.startswith("kept ") else "rows: " + line)
        except (OSError, ValueError):
            pass


def _any_conversation(root: Path) -> bool:
    """Whether ``root`` holds a conversation's folder (a round written or landed)."""
    from ..storage.layout import CONVERSATIONS

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


def main(argv: list[str]) -> int:
    """The child: keep the rows of every conversation of ``argv[0]`` (a root) whose kept ones are not current, with
    ``argv[1]`` as the configuration when given; print ``kept the list rows of N conversation(s) (T s)``."""
    try:
        os.nice(NICE)
    except OSError:
        pass
    threading.Thread(target=_orphaned, args=(os.getppid(),), daemon=True).start()
    from .list_rows import keep_list_rows
    from ..config import ConfigError, load_config
    from ..view.rows import list_conversations

    root = Path(argv[0])
    began = time.monotonic()
    try:
        cfg = load_config(Path(argv[1]) if len(argv) > 1 else None)
    except ConfigError as exc:  # asz receive read it at its start: changed since
        print(f"note: {root}: the list rows were not kept (configuration: {exc}); asz ls counts them", flush=True)
        return 1
    ids = list(list_conversations(root))
    if ids:
        keep_list_rows(root, cfg, ids, 1)
    print(f"kept the list rows of {len(ids)} conversation(s) for asz ls and asz usage ({time.monotonic() - began:.1f} s)",
          flush=True)
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    sys.exit(main(sys.argv[1:]))
