"""``asz collect`` and ``asz sources``: summary line, exit codes, locks, config.

In process (tests/cli_helpers.py) where only the output and the exit status count; the watcher, the lock
holders and the two collectors racing on one root are real processes.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time

import orjson
import pytest

import forked
from asz_core.storage.root import session_lock

from collect_helpers import (
    ASZ,
    ADAPTER_FILE,
    all_files_ok,
    append,
    asz,
    collect_once,
    env,
    landed,
    line,
    mini_args,
    source_lines,
    summary,
    watch,
)

REQUIRED = ("sessions", "landed", "records", "bytes", "conflicts", "pending", "errors")


def test_once_prints_one_summary_line_last_and_exits_0(tmp_path):
    src, root = tmp_path / "src", tmp_path / "data"
    append(src / "s1" / "main.jsonl", *(line(i) for i in range(7)))
    p = collect_once(src, root, child=True)  # a real process: its stdout and its exit status as a shell sees them
    assert p.returncode == 0, p.stderr
    last = p.stdout.strip().splitlines()[-1]
    assert last.startswith("[") and last[9:11] == "] "
    s = summary(p.stdout)
    for k in REQUIRED:
        assert k in s
    assert (s["sessions"], s["landed"], s["records"], s["pending"], s["errors"]) == ("1", "1", "7", "0", "0")
    assert int(s["bytes"]) == (src / "s1" / "main.jsonl").stat().st_size
    p = collect_once(src, root)
    assert p.returncode == 0 and summary(p.stdout)["landed"] == "0"


def test_once_exits_1_on_a_conflict_or_an_error(tmp_path):
    src, root = tmp_path / "src", tmp_path / "data"
    path = src / "s1" / "main.jsonl"
    append(path, *(line(i) for i in range(7)))
    assert collect_once(src, root).returncode == 0
    path.write_bytes(line(0) + b"\n")
    p = collect_once(src, root)
    assert p.returncode == 1 and summary(p.stdout)["conflicts"] == "1"
    assert f"conflict: {path}: truncated" in p.stderr
    os.symlink("loop.jsonl", src / "s1" / "loop.jsonl")
    p = collect_once(src, root)
    assert p.returncode == 1 and summary(p.stdout)["errors"] == "1"


@pytest.mark.parametrize(
    "args, words",
    [
        (["--adapter", "no-such-adapter"], "no-such-adapter"),
        (["--interval", "ten minutes"], "--interval"),
        (["--max-delta-bytes", "10"], "--max-delta-bytes"),
        (["--no-such-flag"], "no-such-flag"),
        (["--config", "/nonexistent/asz.yaml"], "/nonexistent/asz.yaml"),
    ],
)
def test_usage_errors_exit_2(tmp_path, args, words):
    p = asz("collect", "--once", "--root", str(tmp_path / "data"), "--adapter-file", str(ADAPTER_FILE), *args, cwd=tmp_path)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert words in p.stderr
    assert not (tmp_path / "data").exists()


def test_unknown_config_key_names_key_and_file(tmp_path):
    cfg = tmp_path / "asz.yaml"
    cfg.write_text("storage: {root: ./d}\nadapters:\n  - name: mini-jsonl\n    colector: {mode: once}\n")
    p = asz("collect", "--once", "--adapter-file", str(ADAPTER_FILE), cwd=tmp_path)
    assert p.returncode == 2
    assert "asz.yaml: adapters[0].colector: unknown key" in p.stderr


def test_asz_yaml_in_the_working_directory_is_read(tmp_path):
    src = tmp_path / "sources"
    append(src / "s1" / "main.jsonl", line(0), line(1))
    (tmp_path / "asz.yaml").write_text(
        "storage:\n  root: ./store\n"
        "adapters:\n  - name: mini-jsonl\n    source_root: ./sources\n"
        "    collector: {mode: once, interval: 30s, max_delta_bytes: 4096}\n"
        "parse: {max_round_bytes: 2097152}\n"
    )
    p = asz("collect", "--adapter-file", str(ADAPTER_FILE), cwd=tmp_path)  # mode once: no --once needed
    assert p.returncode == 0, p.stderr
    assert summary(p.stdout)["records"] == "2"
    assert landed(tmp_path / "store", "s1") == source_lines(src / "s1" / "main.jsonl")


def _lines_of(stream) -> "queue.Queue[str | None]":
    """Each line of ``stream`` as it comes, read by a thread of its own; None at its end."""
    import queue
    import threading

    got: "queue.Queue[str | None]" = queue.Queue()

    def read() -> None:
        for ln in stream:
            got.put(ln.rstrip("\n"))
        got.put(None)

    threading.Thread(target=read, daemon=True).start()
    return got


def test_watch_mode_polls_and_stops_on_sigterm(tmp_path):
    """A watching collector lands what a source gains in a later pass, and SIGTERM stops it at once (exit 0 watching,
    its ``stopped:`` line). The test goes by the pass lines themselves: line 1 is appended once the first pass's line is
    out, and the stop sent once a later pass's line says it landed it. Before (session 33, fix33c item 4), it went by
    the landed files: a pass lands what its source holds while it reads it, so on a loaded machine the first pass
    landed both lines (line 1 appended while it was landing line 0) and the SIGTERM came before that pass's line
    (exit 0, nothing on stdout, ``stopped: landed 2 file(s) in 1 session(s)``: 2 in 30 runs under load 19)."""
    src, root = tmp_path / "src", tmp_path / "data"
    path = src / "s1" / "main.jsonl"
    append(path, line(0))
    proc = watch(src, root, "--interval", "200ms")
    said = _lines_of(proc.stdout)
    out: list[str] = []
    try:
        out.append(said.get(timeout=60))  # the first pass's line (it landed line 0)
        assert out[0] is not None and " landed=1 " in out[0], out
        append(path, line(1))
        while " landed=1 " not in out[-1] or len(out) < 2:  # a later pass lands line 1
            out.append(said.get(timeout=60))
            assert out[-1] is not None, out
        assert landed(root, "s1") == source_lines(path)
    finally:
        proc.send_signal(signal.SIGTERM)
        err = proc.stderr.read()
        proc.wait(timeout=30)
    while (ln := said.get(timeout=30)) is not None:
        out.append(ln)
    assert proc.returncode == 0, err
    assert len(out) >= 2 and all(re.fullmatch(r"\[\d\d:\d\d:\d\d\] sessions=1 .*", ln) for ln in out), out
    assert re.search(r"^stopped: landed [01] file\(s\) in [01] session\(s\)", err, re.M), err


def test_a_second_collector_on_the_root_is_refused(tmp_path):
    src, root = tmp_path / "src", tmp_path / "data"
    append(src / "s1" / "main.jsonl", line(0))
    proc = watch(src, root, "--interval", "1h")
    try:
        p = collect_once(src, root)
        assert p.returncode == 1
        assert "another collector is running" in p.stderr and f"pid {proc.pid}" in p.stderr
    finally:
        proc.terminate()
        proc.communicate(timeout=30)
    assert collect_once(src, root).returncode == 0  # the lock went with the process


def test_two_collectors_at_once_never_corrupt(tmp_path):
    src, root = tmp_path / "src", tmp_path / "data"
    for s in range(6):
        append(src / f"s{s}" / "main.jsonl", *(line(i, 200 + 13 * i) for i in range(800)))
    args = [*ASZ, "collect", "--once", *mini_args(src, root, "--max-delta-bytes", "131072")]
    procs = [forked.Popen(args, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=120) for p in procs]
    codes = sorted(p.returncode for p in procs)
    assert codes in ([0, 0], [0, 1]), outs
    for p, (out, err) in zip(procs, outs):
        if p.returncode == 1:
            assert "another collector is running" in err
    for s in range(6):
        assert landed(root, f"s{s}") == source_lines(src / f"s{s}" / "main.jsonl")  # each line exactly once
    assert all_files_ok(root) == []


def test_a_held_session_lock_is_waited_for_then_left_busy(tmp_path):
    src, root = tmp_path / "src", tmp_path / "data"
    append(src / "s1" / "main.jsonl", line(0))
    append(src / "s2" / "main.jsonl", line(0))
    lock = session_lock(root, "s1").acquire()
    try:
        t = time.monotonic()
        p = collect_once(src, root, "--lock-timeout", "0.5")
        assert time.monotonic() - t >= 0.5
    finally:
        lock.release()
    assert p.returncode == 1
    assert f"busy: {root / 's1'}" in p.stderr and f"pid {os.getpid()}" in p.stderr
    s = summary(p.stdout)
    assert (s["busy"], s["records"]) == ("1", "1")
    p = collect_once(src, root)
    assert p.returncode == 0 and summary(p.stdout)["records"] == "1"


def test_sources_lists_files_sizes_and_cursor_states(tmp_path):
    src, root = tmp_path / "src", tmp_path / "data"
    path = src / "s1" / "main.jsonl"
    append(path, line(0), line(1))
    (src / "s1" / "a1.meta.json").write_text('{"a":1}')
    p = asz("sources", *mini_args(src, root), "--json")
    assert p.returncode == 0, p.stderr
    doc = orjson.loads(p.stdout)
    rows = {r["src"]: r for r in doc["adapters"][0]["sessions"][0]["sources"]}
    assert rows["s1/main.jsonl"]["state"] == "new" and rows["s1/main.jsonl"]["unread"] == path.stat().st_size
    assert collect_once(src, root).returncode == 0
    append(path, line(2))
    doc = orjson.loads(asz("sources", *mini_args(src, root), "--json").stdout)
    rows = {r["src"]: r for r in doc["adapters"][0]["sessions"][0]["sources"]}
    main = rows["s1/main.jsonl"]
    assert (main["state"], main["ord"], main["unread"]) == ("active", 2, len(line(2)) + 1)
    assert (rows["s1/a1.meta.json"]["state"], rows["s1/a1.meta.json"]["unread"]) == ("active", 0)
    text = asz("sources", *mini_args(src, root))
    assert text.returncode == 0 and "s1/main.jsonl" in text.stdout and "active" in text.stdout
    assert not list(root.rglob(".lock.*"))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this platform")
def test_sources_calls_a_fifo_unreadable_as_collect_does(tmp_path):
    src, root = tmp_path / "src", tmp_path / "data"
    (src / "s1").mkdir(parents=True)
    os.mkfifo(src / "s1" / "main.jsonl")
    doc = orjson.loads(asz("sources", *mini_args(src, root), "--json").stdout)
    [row] = doc["adapters"][0]["sessions"][0]["sources"]
    assert (row["state"], row["reason"], row["size"]) == ("unreadable", "not a regular file", None)
    p = collect_once(src, root)
    assert p.returncode == 1 and "unreadable: not a regular file" in p.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this platform")
def test_sources_says_unreadable_over_a_cursor_of_a_source_that_landed(tmp_path):
    """A source that landed and then cannot be read is ``unreadable`` in ``asz sources``, not its cursor's ``active``
    (trial 26a, F6: a chmod 000 source read ``active`` with size and unread ``-``). A named pipe in its place is what
    a test can make unreadable whoever runs it (root reads through a mode 000)."""
    src, root = tmp_path / "src", tmp_path / "data"
    append(src / "s1" / "main.jsonl", *(line(i) for i in range(3)))
    assert collect_once(src, root).returncode == 0
    landed_bytes = (src / "s1" / "main.jsonl").stat().st_size
    (src / "s1" / "main.jsonl").unlink()
    os.mkfifo(src / "s1" / "main.jsonl")
    doc = orjson.loads(asz("sources", *mini_args(src, root), "--json").stdout)
    [row] = doc["adapters"][0]["sessions"][0]["sources"]
    assert (row["state"], row["reason"], row["size"], row["landed"]) == ("unreadable", "not a regular file", None, landed_bytes)
    table = asz("sources", *mini_args(src, root)).stdout
    [shown] = [ln for ln in table.splitlines() if ln.endswith("s1/main.jsonl")]
    assert " unreadable " in shown and " active " not in shown


def test_a_missing_or_regular_file_source_root_is_said_plainly(tmp_path):
    """No exception class names in the messages; a failed one-shot collect creates no storage root."""
    missing, regular, root = tmp_path / "cc" / "projects", tmp_path / "plain.txt", tmp_path / "data"
    regular.write_text("not a directory\n")
    p = asz("sources", "--source", str(missing), "--root", str(root), cwd=tmp_path)
    assert p.returncode == 1
    assert f"error: {missing}: no such directory" in p.stderr.splitlines()
    p = asz("collect", "--once", "--source", str(regular), "--root", str(root), cwd=tmp_path)
    assert p.returncode == 1
    assert p.stderr.splitlines() == [f"error: {regular}: not a directory"]
    assert summary(p.stdout)["errors"] == "1" and summary(p.stdout)["rounds"] == "0"
    # the default adapter with its default source root missing, from a working directory with no ./data
    p = asz("collect", "--once", cwd=tmp_path, extra_env={"CLAUDE_CONFIG_DIR": str(tmp_path / "cc")})
    assert p.returncode == 1
    assert f"error: {missing}: no such source root for adapter claude-code-local" in p.stderr
    for out in (p.stdout, p.stderr):
        assert "Error:" not in out
    assert not root.exists() and not (tmp_path / "data").exists()


def test_ctrl_c_says_what_the_pass_landed_before_it_stopped(corpus_dir, tmp_path):
    """Trial finding 12: an interrupted ``asz collect --once`` printed only ``stopped``. The root starts empty, so every
    landed file and round on disk afterwards is this pass's: the line must count exactly those."""
    import re

    projects = corpus_dir / "claude-code" / "projects"
    if not projects.is_dir():
        pytest.skip(f"{projects} is absent")
    root = tmp_path / "root"
    proc = forked.Popen([*ASZ, "collect", "--once", "--jobs", "2", "--source", str(projects), "--root", str(root)],
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(), start_new_session=True)
    deadline = time.monotonic() + 300
    while not any(root.glob("*/streams/*/*.sd")) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert proc.poll() is None, "the pass ended before it could be interrupted"
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the command and its workers
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    said = re.search(r"stopped: landed (\d+) file\(s\) in (\d+) session\(s\) and wrote (\d+) round\(s\) this pass", err)
    assert said, err
    files = [f for f in root.rglob("*.sd") if not f.relative_to(root).parts[0].startswith("_")]
    rounds = list((root / "_conversations").glob("*/rounds/*.sf"))
    landed_in = len({f.relative_to(root).parts[0] for f in files})
    assert [int(n) for n in said.groups()] == [len(files), landed_in, len(rounds)]
    assert files
    # where the pass was, as its progress bar counted: sessions landed whole (each has files; a session a worker
    # was landing when it was killed has some too), or, once all had landed, sessions parsed
    far = re.search(r"this pass; (\d+) of (\d+) session\(s\) done \(|this pass; parsed (\d+) of (\d+) session\(s\) \(", err)
    assert far, err
    if far.group(1) is not None:
        done, total = int(far.group(1)), int(far.group(2))
        tree = "\n".join(sorted(str(f.relative_to(root)) for f in root.rglob("*") if f.is_file()
                               and not f.relative_to(root).parts[0].startswith("_")))
        assert total == 11 and done <= landed_in <= done + 2, f"{done} done, {landed_in} landed in\n{err}\n{tree}"  # two workers
    else:
        parsed, total = int(far.group(3)), int(far.group(4))
        assert landed_in == 11 and parsed <= len({r.parent.parent.name for r in rounds}) and total <= 11, err
