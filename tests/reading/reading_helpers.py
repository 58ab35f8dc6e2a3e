"""Helpers for the reading tests: run asz, read the corpus's source transcripts directly."""

from __future__ import annotations

import html
import json
import shutil
import subprocess
import time
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def asz_process(*args: str, check: bool = True, timeout: float = 300, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run ``asz ARGS`` in a child process forked from the pre-imported server (tests/forked.py: its own pid, exit
    status and output, without the interpreter's 0.4 s start-up); raise on a non-zero exit when ``check``."""
    import forked

    p = forked.run([sys.executable, "-m", "asz_core.cli.main", *args], capture_output=True, text=True, timeout=timeout, cwd=cwd or REPO)
    if check and p.returncode != 0:
        raise AssertionError(f"asz {' '.join(args)} exited {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


def asz(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    """Run ``asz ARGS`` in this process (Click's runner, in the application the console script would build for it:
    :func:`cli_helpers.app_for`); the same result shape as a subprocess."""
    from typer.testing import CliRunner

    from cli_helpers import app_for, signals_kept

    with signals_kept():  # a command may ignore SIGINT as it exits (collect --once's _decided)
        res = CliRunner().invoke(app_for(*args), list(args), catch_exceptions=False)
    p = subprocess.CompletedProcess(["asz", *args], res.exit_code, res.stdout, res.stderr)
    if check and p.returncode != 0:
        raise AssertionError(f"asz {' '.join(args)} exited {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


def asz_json(*args: str) -> Any:
    """``asz ARGS`` (which must print JSON) decoded."""
    return json.loads(asz(*args).stdout)


def source_lines(path: Path) -> list[dict]:
    """The JSON objects of a source transcript, in file order (lines that do not parse are skipped)."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                d = json.loads(line)
            except ValueError:
                continue
            if isinstance(d, dict):
                out.append(d)
    return out


def main_transcripts(source: Path) -> dict[str, Path]:
    """Session id -> the session's main transcript (``<project>/<session>.jsonl``) under a Claude Code projects folder."""
    return {p.stem: p for p in sorted(source.glob("*/*.jsonl")) if not p.name.startswith("agent-")}


def collected_root(corpus_source: Path, base: Path, projects: dict[str, str]) -> Path:
    """``base/root``: the corpus sessions ``projects`` names (session id -> its project folder) copied into
    ``base/projects`` and collected and parsed by the real ``asz collect --once``; skips when the corpus lacks one."""
    import shutil

    import pytest

    for sid, project in projects.items():
        src = corpus_source / project / f"{sid}.jsonl"
        if not src.is_file():
            pytest.skip(f"the corpus lacks {src}")
        (base / "projects" / project).mkdir(parents=True)
        shutil.copy(src, base / "projects" / project)
    r = base / "root"
    asz("collect", "--once", "--source", str(base / "projects"), "--root", str(r))
    return r


def collect_as_claude_0_1(source: Path, root: Path) -> None:
    """``source`` collected into ``root`` (then parsed) as ``claude-code-local/0.1.0`` landed it: the records of today's
    adapter without the ``content list`` entry 0.2.0 added (a root collected before, whose prose reads source lines)."""
    import io

    from asz_adapters_claude.blocks import CONTENT_LIST_WHAT
    from asz_adapters_claude.plugin import ClaudeCodeLocal
    from asz_core.collect.collector import CollectOptions, Collector, Report

    class EarlierClaude(ClaudeCodeLocal):
        version = "0.1.0"
        sessions_in_parallel = False  # in this process: a worker would load the installed adapter by name

        def convert_line(self, source, line, ord, off):
            rec = super().convert_line(source, line, ord, off)
            rec.dropped = [d for d in rec.dropped if d.what != CONTENT_LIST_WHAT]
            return rec

    Collector(root, EarlierClaude(), source, options=CollectOptions(fsync=False), report=Report(io.StringIO())).run_pass()
    asz("parse", "--root", str(root))


def collect_before_bash_output_rule(source: Path, root: Path) -> None:
    """``source`` collected into ``root`` (then parsed) as the adapter landed it before a bash-mode command's output
    (``<bash-stdout>``/``<bash-stderr>``) stopped being a typed prompt: today's adapter with the earlier prefixes of
    :data:`asz_adapters_claude.transcript._RUNTIME_USER_PREFIXES`, so the output's record is ``external_input`` and
    opens a talk of its own (a root collected before, which the view still reads)."""
    import io

    from asz_adapters_claude import transcript
    from asz_adapters_claude.plugin import ClaudeCodeLocal
    from asz_core.collect.collector import CollectOptions, Collector, Report

    class InProcess(ClaudeCodeLocal):
        sessions_in_parallel = False  # in this process: a worker would load the installed adapter by name

    now = transcript._RUNTIME_USER_PREFIXES
    transcript._RUNTIME_USER_PREFIXES = tuple(p for p in now if not p.startswith("<bash-"))
    try:
        Collector(root, InProcess(), source, options=CollectOptions(fsync=False), report=Report(io.StringIO())).run_pass()
    finally:
        transcript._RUNTIME_USER_PREFIXES = now
    asz("parse", "--root", str(root))


def planted_root(corpus_dir: Path, base: Path, transcript: str | dict, plant=None) -> Path:
    """A root collected (``asz collect --once``) from one real transcript of the shared corpus (``transcript``,
    relative to ``corpus_dir``) whose lines (parsed JSON, a list) ``plant`` changed in place first: ``base/root``;
    or from several, ``transcript`` a dict of each one and its ``plant``."""
    from cli_helpers import asz_in_process

    for one, change in (transcript if isinstance(transcript, dict) else {transcript: plant}).items():
        lines = [json.loads(ln) for ln in (corpus_dir / one).read_text().splitlines()]
        change(lines)
        folder = base / "projects" / Path(one).parent.name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / Path(one).name).write_text("".join(json.dumps(o) + "\n" for o in lines))
    made = asz_in_process("collect", "--once", "--source", str(base / "projects"), "--root", str(base / "root"),
                          env={"CLAUDE_CONFIG_DIR": str(base / "claude-home")})
    assert made.returncode == 0, made.stdout + made.stderr
    return base / "root"


#: The shared corpus's spotter transcript (Claude Code), whose line 4 is its first prompt.
SPOTTER = "claude-code/projects/-home-user-spotter/55604662-cf2a-4331-851a-ec234028f8ca.jsonl"


def prompted_root(corpus_dir: Path, base: Path, prompt: str) -> Path:
    """:func:`planted_root` of :data:`SPOTTER` with ``prompt`` as its first prompt (line 4)."""
    def plant(lines: list[dict]) -> None:
        lines[3]["message"]["content"] = prompt

    return planted_root(corpus_dir, base, SPOTTER, plant)


def keyed_print(root: Path, fingerprint: str) -> str:
    """A credential's unkeyed ``fingerprint`` (the first 12 hex digits of its SHA-256) as ``asz secrets`` and a masked
    export's manifest give it (trial 37a F1): 12 hex digits of HMAC-SHA256 under ``root``'s ``_export/mask.key``."""
    import hashlib
    import hmac

    key = bytes.fromhex((root / "_export" / "mask.key").read_text().strip())
    return hmac.new(key, b"credential\0" + fingerprint.encode(), hashlib.sha256).hexdigest()[:12]


def secrets_found(root: Path, planted: tuple[str, ...]) -> tuple[list[dict], list[tuple[str, str, str]]]:
    """``asz secrets --json`` over ``root`` (exit 1: something found): its findings, and each as (form, kind, the
    planted value whose fingerprint, the first 12 hex digits of its SHA-256 keyed by the root's key, the finding
    names), sorted."""
    import hashlib

    from cli_helpers import asz_in_process

    p = asz_in_process("secrets", "--json", "--root", str(root))
    assert p.returncode == 1, p.stdout + p.stderr
    found = json.loads(p.stdout)
    prints = {keyed_print(root, hashlib.sha256(v.encode()).hexdigest()[:12]): v for v in planted}
    return found, sorted((f["secret"], f["kind"], prints[f["fingerprint"]]) for f in found)


def corpus_texts(corpus_dir: Path):
    """Every text of the shared corpus a credential form could be looked for in: each file's whole text, then every
    string of each of its lines that is JSON (values of objects and lists, nested), in file order."""
    import os

    def strings(o):
        if isinstance(o, str):
            yield o
        elif isinstance(o, dict):
            for v in o.values():
                yield from strings(v)
        elif isinstance(o, list):
            for v in o:
                yield from strings(v)

    for folder, _, files in os.walk(corpus_dir):
        for name in sorted(files):
            text = (Path(folder) / name).read_text(encoding="utf-8", errors="replace")
            yield text
            for line in text.splitlines():
                try:
                    doc = json.loads(line)
                except ValueError:
                    continue
                yield from strings(doc)


def forms_over_corpus(corpus_dir: Path, forms: tuple[str, ...]) -> tuple[int, int]:
    """``(texts read, findings of any of the credential forms named)`` over :func:`corpus_texts`: a form's false
    positives over the whole shared corpus."""
    from asz_core.view.secret_forms import find

    texts = found = 0
    for s in corpus_texts(corpus_dir):
        texts += 1
        found += sum(k in forms for k, _, _ in find(s))
    return texts, found


#: The shared corpus's claude-reliability transcript (relative to the corpus): a short real conversation whose first
#: prompt (line 2) and tool result (line 6) :func:`plant_in_prompt_and_result` plants texts into.
RELIABILITY = "claude-code/projects/-home-user-claude-reliability/de3b8b19-5bc0-4a2a-934a-1b6806567e25.jsonl"


def plant_four_places(prompt: list[str], tool: str, argv: list[str], command: str, result: list[str]):
    """A ``plant`` for :func:`planted_root` over claude-reliability's transcript: ``prompt`` joined by `` ; `` after
    ``Also`` at the end of its first prompt (line 2), its Write call (line 3) made the MCP call ``tool`` whose input
    is the argument list ``argv``, its Bash call's command (line 5) ``command``, and the tool result of line 6
    ``Hello world`` and the lines of ``result``."""

    def plant(lines: list[dict]) -> None:
        lines[1]["message"]["content"] = f"{lines[1]['message']['content']} Also {' ; '.join(prompt)}"
        call = lines[2]["message"]["content"][0]
        call["name"], call["input"] = tool, {"argv": argv}
        lines[4]["message"]["content"][0]["input"]["command"] = command
        lines[5]["message"]["content"][0]["content"] = "\n".join(["Hello world", *result])

    return plant


def export_masks(root: Path, args: list[str], values, shown, kept) -> None:
    """``asz export de3b8b19 ARGS`` over ``root`` exits 0 and writes none of ``values``, each of ``shown`` (a masked
    place as the reader shows it) and each of ``kept`` (a look-alike left whole), HTML-escaped in an html copy."""
    from cli_helpers import asz_in_process

    p = asz_in_process("export", "de3b8b19", *args, "--root", str(root))
    assert p.returncode == 0, p.stderr
    out = p.stdout.replace("\\u2026", "…").replace('\\"', '"')
    assert [v for v in values if v in out] == []
    written = (lambda t: html.escape(t)) if "html" in args else (lambda t: t)
    assert [s for s in shown if written(s) not in out] == []
    assert [d for d in kept if written(d) not in out] == []


def plant_in_prompt_and_result(prompt_tail: str, result: str):
    """A ``plant`` for :func:`planted_root` over claude-reliability's transcript: ``prompt_tail`` appended to its first
    prompt (line 2) after a space, ``result`` made the text of the tool result of line 6."""

    def plant(lines: list[dict]) -> None:
        lines[1]["message"]["content"] = f"{lines[1]['message']['content']} {prompt_tail}"
        lines[5]["message"]["content"][0]["content"] = result

    return plant


def collected_project(source: Path, base: Path, project: str) -> Path:
    """``base/root``: the corpus project folder ``project`` of ``source`` copied to ``base/projects`` and collected
    there with ``asz collect --once`` (landed and parsed)."""
    import shutil

    shutil.copytree(source / project, base / "projects" / project)
    asz("collect", "--once", "--source", str(base / "projects"), "--root", str(base / "root"))
    return base / "root"


def tree_listing(root: Path) -> dict[str, tuple]:
    """Every file and folder under ``root``: relative path -> (size, mtime_ns, mode)."""
    import os
    import stat

    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            st = p.lstat()
            out[p.relative_to(root).as_posix()] = (st.st_size, st.st_mtime_ns, stat.S_IMODE(st.st_mode))
    return out


def write_bits(root: Path, write: bool) -> None:
    """``chmod -R u+w`` (``write``) or ``chmod -R a-w`` of ``root``, folders after their contents when taking."""
    import os
    import stat

    for dirpath, dirnames, filenames in os.walk(root, topdown=not write):
        for name in [*filenames, *dirnames, ""] if not write else ["", *dirnames, *filenames]:
            p = Path(dirpath) / name
            m = stat.S_IMODE(p.lstat().st_mode)
            os.chmod(p, m | stat.S_IWUSR if write else m & ~0o222)


#: Two corpus sessions for a conversation that grows between two exports: (project folder, session id) each.
GROWS = ("-Users-alex-workspace-personal-site-next", "b25638d7-b104-4f06-a797-70ac33d069ed")
STAYS = ("-home-user-spotter", "55604662-cf2a-4331-851a-ec234028f8ca")


def growing_pair(corpus_source: Path, base: Path) -> tuple[Path, Path, Path, list[bytes]]:
    """:data:`STAYS` whole and the first 30 of :data:`GROWS`'s 46 source lines copied under ``base/projects`` and
    collected into ``base/root``: ``(projects, root, GROWS's live source file, its every line)`` (write them all and
    collect again: it grows by one landed file, round 1 → 2)."""
    import shutil

    proj = base / "projects"
    for d, _ in (GROWS, STAYS):
        (proj / d).mkdir(parents=True)
    shutil.copy(corpus_source / STAYS[0] / f"{STAYS[1]}.jsonl", proj / STAYS[0])
    lines = (corpus_source / GROWS[0] / f"{GROWS[1]}.jsonl").read_bytes().splitlines(keepends=True)
    live = proj / GROWS[0] / f"{GROWS[1]}.jsonl"
    live.write_bytes(b"".join(lines[:30]))
    root = base / "root"
    asz("collect", "--once", "--source", str(proj), "--root", str(root))
    return proj, root, live, lines


def as_copy(folder: Path, name: str, data: bytes, body: dict) -> str:
    """``data`` written as ``folder/name`` with ``body`` as its manifest (an export's, its ``render`` as the test
    says), the copy's digests its own: a copy as an older asz made it, for ``asz verify --export``. Its path."""
    import hashlib

    from asz_core.reading.export_manifest import line_digests

    (folder / name).write_bytes(data)
    body = {**body, "export": {**body["export"], "file": name, "bytes": len(data),
                               "sha256": hashlib.sha256(data).hexdigest(), "lines": line_digests(data)}}
    (folder / f"{name}.manifest.json").write_text(json.dumps(body))
    return str(folder / name)


def plant_heads(lines: list[dict], cwd: str, branch: str, model: str | None = None) -> None:
    """Put ``cwd`` and ``branch`` in every transcript line that has a cwd, and ``model`` (when given) in every
    assistant message: the values an export's head draws, planted in place."""
    for o in lines:
        if "cwd" in o:
            o["cwd"], o["gitBranch"] = cwd, branch
        m = o.get("message")
        if model is not None and isinstance(m, dict) and m.get("role") == "assistant":
            m["model"] = model


def landed_projects(base: Path, files: dict[str, list[dict]]) -> Path:
    """``base/root``: the transcripts ``files`` (path under ``base/projects`` -> its JSON lines) written there, one line
    each, and landed by the real ``asz collect --once``."""
    for name, lines in files.items():
        (base / "projects" / name).parent.mkdir(parents=True, exist_ok=True)
        (base / "projects" / name).write_text("".join(json.dumps(d) + "\n" for d in lines))
    asz("collect", "--once", "--source", str(base / "projects"), "--root", str(base / "root"))
    return base / "root"


def checks_as_render(copy: Path, root: Path, render: int, later: int) -> None:
    """``copy`` (an md export drawn as render ``render`` drew it) checks against ``root`` when its manifest says
    ``render`` (``asz verify --export``: exit 0, ``the copy checks against the root``), and does not when the same
    bytes are said to be render ``later`` (exit 1, a changed line named)."""
    from cli_helpers import asz_in_process

    manifest = copy.with_name(copy.name + ".manifest.json")
    body = json.loads(manifest.read_bytes())
    manifest.write_text(json.dumps({**body, "render": render}))
    ok = asz_in_process("verify", "--export", str(copy), "--root", str(root))
    assert ok.returncode == 0 and ok.stdout.splitlines()[-1] == "the copy checks against the root", ok.stdout
    manifest.write_text(json.dumps({**body, "render": later}))  # the same bytes said to be the later render
    bad = asz_in_process("verify", "--export", str(copy), "--root", str(root))
    assert bad.returncode == 1 and f"{copy.name}: line " in bad.stdout, bad.stdout


def stopped_itself(p: subprocess.Popen, point: str) -> subprocess.Popen:
    """``p`` (a real ``asz export`` run with ``ASZ_TEST_EXPORT_STOP=point``) once it has stopped itself there (SIGSTOP:
    its state T in /proc); fails when it ends first or has not stopped within 300 s."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        assert p.poll() is None, f"it ended before {point}: {p.communicate()}"
        try:
            state = Path(f"/proc/{p.pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            state = ""
        if state == "T":
            return p
        time.sleep(0.05)  # waits for the stop; where it stops is the hook's, not this wait's
    p.kill()
    raise AssertionError(f"never stopped at {point}")


def damage_table(index: Path, table: str) -> None:
    """The root page of ``table`` in the SQLite file ``index`` overwritten as a failing disk would (its log
    checkpointed first): an update that finds nothing new never reads it, a query of the table does."""
    import sqlite3

    con = sqlite3.connect(index)
    page, size = con.execute("SELECT rootpage FROM sqlite_master WHERE name=?", (table,)).fetchone()[0], \
        con.execute("PRAGMA page_size").fetchone()[0]
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    with open(index, "r+b") as f:
        f.seek((page - 1) * size)
        f.write(b"\xab" * size)


def header_forms_as(out: Path, body: dict, forms) -> bytes:
    """A text copy ``out`` whose header lists today's credential forms made as an asz of ``forms`` (their names)
    wrote it: the list replaced, ``body`` (its manifest, changed in place) given the new bytes' digests and its masks
    after the list moved by as many bytes; the copy's new bytes."""
    import hashlib

    from asz_core.view.secret_forms import KINDS

    now = ("forms " + ", ".join(name for name, _, _ in KINDS) + ", not_covered ").encode()
    data = out.read_bytes()
    at, was = data.index(now), ("forms " + ", ".join(forms) + ", not_covered ").encode()
    data = data[:at] + was + data[at + len(now):]
    out.write_bytes(data)
    body["export"].update(bytes=len(data), sha256=hashlib.sha256(data).hexdigest(),
                          lines=[hashlib.sha256(x).hexdigest()[:16] for x in data.split(b"\n")])
    body["masks"] = [{**m, "offset": m["offset"] + (len(was) - len(now)) * (m["offset"] > at)} for m in body["masks"]]
    return data


def readers_masked(planted: Path, tmp_path: Path, values, snippet: str, searched, talk_shown, page_shown,
                   page_query: str) -> None:
    """Every reader but the exports masks the planted credentials ``values`` of :func:`planted_root`'s
    claude-reliability root ``planted``: ``asz search Also`` prints none whole (its first hit's snippet holding
    ``snippet``) and a phrase search for each of ``searched`` finds nothing; ``asz conversation --step`` of that hit
    prints none whole and each of ``talk_shown`` as masked; the page (masked by default) holds none whole in its
    search results for ``page_query`` and its document, which holds each of ``page_shown``."""
    from cli_helpers import asz_in_process

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "view_server"))
    from view_server_helpers import Served

    got = asz_in_process("search", "Also", "--root", str(planted), "--json")
    assert got.returncode == 0, got.stderr
    hits = json.loads(got.stdout)
    assert [v for v in values if v in got.stdout] == [] and snippet in hits[0]["snippet"]
    for value in searched:
        assert json.loads(asz_in_process("search", f'"{value}"', "--root", str(planted), "--json").stdout) == []
    talk = asz_in_process("conversation", "de3b8b19", "--step", hits[0]["step"], "--root", str(planted))
    assert talk.returncode == 0, talk.stderr
    assert [v for v in values if v in talk.stdout] == [] and [s for s in talk_shown if s not in talk.stdout] == []
    s = Served(["view", "--root", str(planted)], tmp_path, timeout=60)
    try:
        found = s.get(f"/api/search?q={page_query}&limit=50&held_back=1")
        assert found.status == 200 and [v for v in values if v.encode() in found.body] == []
        view = s.get(f"/api/c/{hits[0]['conversation']}/view")
        assert view.status == 200
        body = view.body.replace(b"\\u0026", b"&").replace(b'\\"', b'"')
        assert [v for v in values if v.encode() in body] == [] and [t for t in page_shown if t.encode() not in body] == []
    finally:
        s.stop()


def collected_at_budget(base: Path, session: str, results: list[dict], call: tuple[str, dict] = ("Task", {"prompt": "do"}),
                        budget: int = 1024) -> subprocess.CompletedProcess:
    """A Claude Code transcript written to ``base/projects/-home-me-x/SESSION.jsonl`` (UTF-8 as written, as Claude
    Code writes it): a prompt, a model reply calling tool ``toolu_5`` (``call``: its name and input), then one user
    line per entry of ``results`` (``{"tool", "content", "copy"}`` and optionally ``"is_error"``: a ``tool_result``
    for call ``tool`` and the runtime's structured copy, ``toolUseResult``), landed into ``base/root`` by the real
    ``asz collect --once`` with ``max_delta_bytes`` ``budget`` (exit 0 asserted). Returns the collect's result."""
    from cli_helpers import asz_in_process

    proj = base / "projects" / "-home-me-x"
    proj.mkdir(parents=True)
    common = {"sessionId": session, "cwd": "/home/me/x", "version": "2.1.1", "userType": "external", "isSidechain": False}
    lines = [
        {**common, "type": "user", "uuid": "u1", "parentUuid": None, "timestamp": "2026-04-15T10:00:00.000Z",
         "message": {"role": "user", "content": "run the subagent"}},
        {**common, "type": "assistant", "uuid": "a1", "parentUuid": "u1", "timestamp": "2026-04-15T10:00:00.500Z",
         "requestId": "req_1", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                                           "content": [{"type": "tool_use", "id": "toolu_5", "name": call[0], "input": call[1]}],
                                           "stop_reason": "tool_use", "usage": {"input_tokens": 3, "output_tokens": 9}}},
    ]
    for i, r in enumerate(results, 2):
        block = {"type": "tool_result", "tool_use_id": r["tool"], "content": r["content"],
                 **({"is_error": True} if r.get("is_error") else {})}
        lines.append({**common, "type": "user", "uuid": f"u{i}", "parentUuid": lines[-1]["uuid"],
                      "timestamp": f"2026-04-15T10:00:{i - 1:02d}.000Z", "message": {"role": "user", "content": [block]},
                      "toolUseResult": r["copy"]})
    (proj / f"{session}.jsonl").write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    (base / "asz.yaml").write_text(f"adapters:\n  - name: claude-code-local\n    collector:\n      max_delta_bytes: {budget}\n")
    p = asz_in_process("collect", "--once", "--config", str(base / "asz.yaml"), "--source", str(base / "projects"),
                       "--root", str(base / "root"), cwd=base, env={"CLAUDE_CONFIG_DIR": str(base / "claude-home")})
    assert p.returncode == 0, p.stderr
    return p


def kiro_home_session(corpus_dir: Path, base: Path, session: str) -> tuple[Path, Path, list[str]]:
    """The corpus's Kiro home copied to ``base/.kiro`` (writable), the folder of its session ``session`` there and
    that session's ``messages.jsonl`` lines (kept ends); skips the test when the Kiro corpus is absent."""
    import pytest

    kiro = corpus_dir / "kiro" / "home" / ".kiro"
    if not kiro.is_dir():
        pytest.skip(f"the Kiro corpus is absent ({kiro})")
    home = base / ".kiro"
    shutil.copytree(kiro, home)
    for p in home.rglob("*"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    (orig,) = (home / "sessions").glob(f"*/{session}")
    return home, orig, (orig / "messages.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
