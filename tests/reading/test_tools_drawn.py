"""Tool calls drawn as a person reads them in ``asz export``'s md and html (render 20; trial 43c F4, F7;
docs/reading.md, "Tool inputs"; ``asz_core.view.tool_drawn``): Claude Code's ``TodoWrite`` as a checklist (was its
JSON), ``Edit`` and ``MultiEdit`` as a unified diff of old to new headed by the file's path, ``Write`` as its content in
a code block with its extension's language (were their raw fields); the text form keeps its prose rule (seed 003).

Real input: every such call of ``../shared/corpus`` (46 TodoWrite with 210 todos, 90 Edit, 8 MultiEdit with 16 edits,
14 Write; counted here from the source lines), and written lines holding ``<script>``, ``<img onerror>`` and a
credential in a todo, an edit and a file written. Expected texts are read from the source lines, never from asz.
``data/tools_before`` (made once by a checkout of 1649226e, render 19): those written lines (``session.jsonl``), them
collected (``root``: its landed files, round, states and mask key) and the md and html copies 1649226e made of them.
"""

from __future__ import annotations

from asz_core.reading.export_render import RENDER  # the render this asz writes (pinned by rule)

import html
import json
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest
from reading_helpers import as_copy, asz

DATA = Path(__file__).parent / "data" / "tools_before"

TOOLS = ("TodoWrite", "Edit", "MultiEdit", "Write")
#: The languages the corpus's Write calls' extensions read as (asz_core.view.tool_drawn.LANGUAGES, written out here).
LANGS = {".md": "markdown", ".yml": "yaml", ".sh": "bash", ".js": "javascript", ".css": "css", ".ex": "elixir", ".exs": "elixir"}


def _calls(projects: Path) -> dict[str, list[dict]]:
    """``{session id: [tool_use block…]}`` of every TodoWrite, Edit, MultiEdit and Write call in the corpus, each
    once by its id (a sub-agent's file counts for its parent session)."""
    out: dict[str, list[dict]] = {}
    seen = set()
    for p in sorted(projects.rglob("*.jsonl")):
        sid = p.stem if p.parent.name != "subagents" else p.parent.parent.name
        for line in p.read_text(encoding="utf-8").splitlines():
            d = json.loads(line) if line.strip() else {}
            content = (d.get("message") or {}).get("content") if isinstance(d.get("message"), dict) else None
            for b in content if isinstance(content, list) else ():
                if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") in TOOLS and b["id"] not in seen:
                    seen.add(b["id"])
                    out.setdefault(sid, []).append(b)
    return out


@pytest.fixture(scope="module")
def corpus(corpus_projects, corpus_copy):
    root = corpus_copy()
    calls = _calls(corpus_projects)
    got = {sid: {f: asz("export", sid, "--root", str(root), "--format", f).stdout for f in ("md", "html")} for sid in calls}
    return calls, got


def _diff_sides(lines: list[str]) -> tuple[list[str], list[str]]:
    """The old and new texts' lines a whole-context unified diff's body holds (after its ``@@`` line)."""
    return [x[1:] for x in lines if x[:1] in " -"], [x[1:] for x in lines if x[:1] in " +"]


def test_every_corpus_todo_edit_and_write_is_drawn_in_md_and_html(corpus):
    calls, got = corpus
    n = Counter(b["name"] for bs in calls.values() for b in bs)
    todos = [t for bs in calls.values() for b in bs if b["name"] == "TodoWrite" for t in b["input"]["todos"]]
    edits = [e for bs in calls.values() for b in bs for e in ([b["input"]] if b["name"] == "Edit" else b["input"].get("edits", []))]
    assert (n["TodoWrite"], len(todos), n["Edit"], n["MultiEdit"], len(edits), n["Write"]) == (46, 210, 90, 8, 106, 14)
    md = "".join(g["md"] for g in got.values())
    page = html.unescape("".join(g["html"] for g in got.values()))
    # every todo a checklist item, its status by its mark; none of the list's JSON left
    for t in todos:
        mark = "x" if t["status"] == "completed" else " "
        assert f"- [{mark}] {t['content']}" in md, t
        assert f"{t['content']}</span>" in page
    marks = Counter(re.findall(r'<li class="todo ([a-z_]+)"><span class="mark"', page))
    assert marks == Counter(t["status"] for t in todos) == {"completed": 106, "pending": 71, "in_progress": 33}
    assert md.count(" *(in progress") == 33 and '"todos":[{' not in md and '"activeForm":"' not in page
    assert len(re.findall(r'<summary>Tool <b>TodoWrite</b> <code class="gist"><bdi>\d+ todos?: ', page)) == 46
    # the older lists' id and priority, an activeForm differing from the content, never lost
    assert sum(f"id: {t['id']}; priority: {t['priority']}" in md for t in todos if "id" in t) == 28
    shown = [t for t in todos if t.get("activeForm") not in (None, t["content"])]
    assert shown and all(f"shown as: {t['activeForm']}" in md for t in shown)
    # every edit a diff whose - and context lines are old_string's, + and context lines new_string's
    bodies = [b.split("\n") for _, b in re.findall(r"^(`{3,})diff\n(--- .*?)\n\1$", md, re.S | re.M)]
    assert len(bodies) == len(edits) == page.count('<pre class="diff">')
    sides = [_diff_sides(b[3:]) for b in bodies if b[2].startswith("@@")]
    for e in edits:
        want = (e["old_string"].splitlines(), e["new_string"].splitlines())
        assert want in sides or (want[0] == want[1]), e
    assert md.count("replace_all: `true`") == sum(e.get("replace_all") is True for bs in calls.values() for b in bs
                                                    if b["name"] == "Edit" for e in [b["input"]])
    # every file written as its content, in a block of its extension's language
    for bs in calls.values():
        for b in bs:
            if b["name"] == "Write":
                lang = LANGS[Path(b["input"]["file_path"]).suffix]
                assert re.search(rf"(`{{3,}}){lang}\n{re.escape(b['input']['content'])}\n\1", md), b["input"]["file_path"]
                assert f'<pre class="write"><code class="language-{lang}">{b["input"]["content"]}</code></pre>' in page


SID = "7d0d0000-0000-4000-8000-0000000044c0"
PWN = "<script>window.__pwned=1</script><img src=x onerror=\"window.__pwned=2\">"
#: A GitHub token (asz_core.view.secret_forms' github-token form): masked in every drawn form.
TOKEN = "ghp_" + "Q7rT2mX9vK4pL8sW1nB6cD3fH5jZ0yA2eG4u"


def written_lines() -> list[dict]:
    """A Claude Code session: thinking in Markdown holding markup, a TodoWrite, an Edit, a MultiEdit and a Write, each
    holding ``<script>``, ``<img onerror>`` and (the todo, the Edit, the Write) a GitHub token."""
    def env(uuid, parent, t, type_, **kw):
        return {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/home/dev/site", "sessionId": SID,
                "version": "2.1.114", "type": type_, "uuid": uuid, "timestamp": t, **kw}

    def call(i, parent, name, inp, extra=()):
        return [env(f"a-{i}", parent, f"2026-11-21T10:00:{i:02d}.000Z", "assistant", requestId=f"req_{i}", message={
            "id": f"msg_{i}", "type": "message", "role": "assistant", "model": "claude-opus-5",
            "content": [*extra, {"type": "tool_use", "id": f"toolu_{i}", "name": name, "input": inp}],
            "stop_reason": "tool_use", "usage": {"input_tokens": 10, "output_tokens": 20}}),
            env(f"u-{i}", f"a-{i}", f"2026-11-21T10:00:{i:02d}.500Z", "user", message={"role": "user", "content": [
                {"tool_use_id": f"toolu_{i}", "type": "tool_result", "content": "ok"}]})]

    thinking = {"type": "thinking", "thinking": f"## Plan\n\n**First** the list, then `{PWN}` and {PWN}", "signature": "s"}
    todos = {"todos": [{"content": f"Fix {PWN} with {TOKEN}", "status": "in_progress", "activeForm": "Fixing it"},
                       {"content": "Ship", "status": "pending", "activeForm": "Ship"},
                       {"content": "Plan", "status": "completed", "activeForm": "Planning", "owner": "me"},
                       {"content": "Wait", "status": "blocked", "activeForm": "Wait"}]}
    edit = {"file_path": "/home/dev/site/a.html", "old_string": "<p>hi</p>\nkeep", "new_string": f"{PWN}\nkeep\ntoken={TOKEN}",
            "replace_all": True}
    multi = {"file_path": "/home/dev/site/b.py", "edits": [{"old_string": "a = 1", "new_string": "a = 2"},
                                                            {"old_string": "x", "new_string": PWN, "replace_all": True}]}
    write = {"file_path": "/home/dev/site/run.sh", "content": f"echo '{PWN}'\nexport GH={TOKEN}\n"}
    out = [env("u-0", None, "2026-11-21T10:00:00.000Z", "user", message={"role": "user", "content": "Fix the page."})]
    parent = "u-0"
    for i, (name, inp) in enumerate((("TodoWrite", todos), ("Edit", edit), ("MultiEdit", multi), ("Write", write)), 1):
        out += call(i, parent, name, inp, [thinking] if i == 1 else [])
        parent = f"u-{i}"
    return out


def collected_written(base: Path) -> Path:
    """:func:`written_lines` collected by the real ``asz collect --once`` into ``base/root``; that root."""
    src = base / "projects" / "-home-dev-site"
    src.mkdir(parents=True)
    (src / f"{SID}.jsonl").write_text("".join(json.dumps(d) + "\n" for d in written_lines()), encoding="utf-8")
    asz("collect", "--once", "--source", str(base / "projects"), "--root", str(base / "root"))
    return base / "root"


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    return collected_written(tmp_path_factory.mktemp("drawn"))


def test_hostile_texts_stay_text_and_credentials_masked(written):
    md = asz("export", SID, "--root", str(written), "--format", "md", "--thinking").stdout
    page = asz("export", SID, "--root", str(written), "--format", "html", "--thinking").stdout
    text = asz("export", SID, "--root", str(written), "--format", "text").stdout
    assert TOKEN not in md and TOKEN not in page and TOKEN[:12] not in md + page
    # html: every drawn text escaped, no element of the transcript's
    assert "<script>window" not in page and "<img src=x" not in page and page.count("&lt;script&gt;window.__pwned=1") >= 6
    assert '<li class="todo in_progress"><span class="mark" title="in_progress">\u25d0</span> <span class="what">Fix &lt;script&gt;' in page
    assert '<li class="todo blocked"><span class="mark" title="blocked">?</span> <span class="what">Wait</span> <i>(status: blocked)</i></li>' in page
    assert "<span class=\"del\">-&lt;p&gt;hi&lt;/p&gt;</span>" in page and "<span class=\"ctx\"> keep</span>" in page
    assert '<pre class="write"><code class="language-bash">echo &#x27;&lt;script&gt;' in page
    # md: a checklist, diffs and the written file; raw HTML outside code written inert
    # (the list item holding raw HTML is written inert whole: its "[" too, so a viewer shows it as text)
    assert "- \\[ ] Fix \\<script>window.__pwned=1\\</script>\\<img src=x onerror=\"window.__pwned=2\"> with ghp_…" in md
    assert "- [ ] Ship\n- [x] Plan *(shown as: Planning; owner: me)*\n- [ ] Wait *(status: blocked)*" in md
    assert "*(in progress; shown as: Fixing it)*" in md and "- replace_all: `true`" in md
    assert "```diff\n--- /home/dev/site/a.html\n+++ /home/dev/site/a.html\n@@ -1,2 +1,3 @@\n-<p>hi</p>\n+" + PWN + "\n keep\n+token=" in md
    assert "*edit 1 of 2*\n\n```diff\n--- /home/dev/site/b.py\n+++ /home/dev/site/b.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n```" in md
    assert "*edit 2 of 2 · replace_all*" in md and "```bash\necho '" + PWN + "'\nexport GH=" in md
    assert "warning: active content:" in md.split("\n", 3)[2]
    # the text form keeps its prose rule: a call is one line, no checklist, no diff
    assert "- [ ]" not in text and "@@ " not in text and "```" not in text


def test_a_copy_drawn_before_render_20_still_checks(written, tmp_path):
    """Render 19 drew these inputs as their fields: its copy (manifest render 19) checks, made again as render 19
    drew it, and not as render 20; today's copy draws them and checks. Both formats."""
    from asz_core.reading.export_render import drawing

    for fmt in ("md", "html"):
        with drawing(19):
            asz("export", SID, "--format", fmt, "--out", str(tmp_path / f"old.{fmt}"), "--root", str(written))
        body = json.loads((tmp_path / f"old.{fmt}.manifest.json").read_bytes())
        old = (tmp_path / f"old.{fmt}").read_bytes()
        assert b"old_string" in old and b"diff" not in old.replace(b"differ", b"")
        for render, rc in ((19, 0), (20, 1)):
            ok = asz("verify", "--export", as_copy(tmp_path, f"r{render}.{fmt}", old, {**body, "render": render}),
                     "--root", str(written), check=False)
            assert ok.returncode == rc, (fmt, render, ok.stdout + ok.stderr)
        asz("export", SID, "--format", fmt, "--out", str(tmp_path / f"now.{fmt}"), "--root", str(written))
        now = (tmp_path / f"now.{fmt}").read_bytes()
        assert b"old_string" not in now and (b"```diff" in now or b'<pre class="diff">' in now)
        assert json.loads((tmp_path / f"now.{fmt}.manifest.json").read_bytes())["render"] == RENDER
        assert asz("verify", "--export", str(tmp_path / f"now.{fmt}"), "--root", str(written), check=False).returncode == 0


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_a_copy_made_by_1649226e_still_checks(tmp_path, fmt):
    """A copy asz made before render 20 (1649226e: the todo list as its JSON, the Edit's two texts as blocks) checks
    against the root it was made from; the same bytes said to be render 20 do not."""
    assert (DATA / "session.jsonl").read_text(encoding="utf-8") == "".join(json.dumps(d) + "\n" for d in written_lines())
    shutil.copytree(DATA / "root", tmp_path / "root")
    copy = tmp_path / f"old.{fmt}"
    data = (DATA / f"1649226e.{fmt}").read_bytes()
    copy.write_bytes(data)
    body = json.loads((DATA / f"1649226e.{fmt}.manifest.json").read_bytes())
    (tmp_path / f"old.{fmt}.manifest.json").write_text(json.dumps(body))
    assert body["render"] == 19 and b"old_string" in data and (b'- todos: `[{"content":' in data or b"todos: <code>[{&quot;" in data)
    ok = asz("verify", "--export", str(copy), "--root", str(tmp_path / "root"), check=False)
    assert ok.returncode == 0 and ok.stdout.splitlines()[-1] == "the copy checks against the root", ok.stdout + ok.stderr
    later = as_copy(tmp_path, f"r20.{fmt}", data, {**body, "render": 20})
    assert asz("verify", "--export", later, "--root", str(tmp_path / "root"), check=False).returncode == 1
