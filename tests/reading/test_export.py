"""``asz export`` on the real corpus and the canary session (issue 20; seed 003 for prose)."""

from __future__ import annotations

import json
import os
from html.parser import HTMLParser
from pathlib import Path

import orjson
import pytest
from reading_helpers import asz, asz_json, main_transcripts, source_lines

from asz_core.storage.layout import landed_files
from asz_core.reading.export_blocks import nested


def seed_003_prose(path: Path) -> list[dict]:
    """Seed 003, §4 "Structured (keep role + text, one JSON object per turn)", applied to a source transcript as its jq does::

        select((.type=="assistant" and (.message.content|type=="array"))
               or (.type=="user" and (.message.content|type=="string")))
        | { role: .message.role, ts: .timestamp,
            text: (if (.message.content|type)=="string" then .message.content
                   else ([.message.content[] | select(.type=="text") | .text] | join("\\n")) end) }
        | select(.text != "" and .text != null)
    """
    out = []
    for d in source_lines(path):
        msg = d.get("message") if isinstance(d.get("message"), dict) else {}
        c = msg.get("content")
        if not ((d.get("type") == "assistant" and isinstance(c, list)) or (d.get("type") == "user" and isinstance(c, str))):
            continue
        text = c if isinstance(c, str) else "\n".join(b.get("text") for b in c if isinstance(b, dict) and b.get("type") == "text")
        if text:
            out.append({"role": msg.get("role"), "ts": d.get("timestamp"), "text": text})
    return out


def user_lists_of_text(path: Path) -> list[tuple[str, str]]:
    """``(timestamp, text blocks joined)`` of user lines whose content is a list with text and no tool result (seed 003 drops them)."""
    return [(d.get("timestamp"), "\n".join(b["text"] for b in d["message"]["content"] if b.get("type") == "text"))
            for d in source_lines(path)
            if d.get("type") == "user" and isinstance(d["message"]["content"], list)
            and any(b.get("type") == "text" for b in d["message"]["content"])
            and not any(b.get("type") == "tool_result" for b in d["message"]["content"])]


def _src_of(root: Path, session: str) -> dict[str, str]:
    """Landed file (relative to the root) -> the source path its header names."""
    out = {}
    for _, p in landed_files(root / session):
        with open(p, "rb") as f:
            out[p.relative_to(root).as_posix()] = orjson.loads(f.readline())["src"]
    return out


def _prose_by_source(corpus_root: Path, sid: str, *extra: str) -> tuple[dict[str, list[dict]], set[str], str]:
    """``asz export SID --format prose``: its turns as seed 003's ``{role, ts, text}`` grouped by source file, the session's sources, stderr."""
    p = asz("export", sid, "--format", "prose", "--root", str(corpus_root), *extra)
    turns = [json.loads(line) for line in p.stdout.splitlines()]
    assert "tokens" in p.stderr and "prose" in p.stderr
    assert all(t["role"] in ("user", "assistant") and t["conversation"] == sid for t in turns)
    src_of = _src_of(corpus_root, sid)
    by_src: dict[str, list[dict]] = {}
    for t in turns:
        by_src.setdefault(src_of[t["file"]], []).append({"role": t["role"], "ts": t["ts"], "text": t["text"]})
    return by_src, {s for s in src_of.values() if s.endswith(".jsonl")}, p.stderr


def test_prose_export_is_seed_003s_rule_applied_to_the_source_files(corpus_root, corpus_source, corpus_dir):
    matched, lists = [], 0
    for sid in main_transcripts(corpus_source):
        by_src, sources, err = _prose_by_source(corpus_root, sid, "--source", str(corpus_source))
        assert "could not be checked against their source transcripts" not in err
        for src in sorted(sources):
            assert by_src.get(src, []) == seed_003_prose(corpus_source / src), src
            matched.append(src)
            lists += len(user_lists_of_text(corpus_source / src))
    every = sorted(p.relative_to(corpus_source).as_posix() for p in corpus_source.rglob("*.jsonl"))
    assert sorted(matched) == every and len(every) == 23, (len(matched), len(every))
    assert lists == 14  # user lines of text/image blocks seed 003 drops, in 6 of the files: dropped here too
    # The hook payloads of the corpus are hook events, not transcripts: no line of them is one seed 003 reads.
    hooks = sorted((corpus_dir / "hooks").glob("*.jsonl"))
    assert hooks and not any(d.get("type") in ("user", "assistant") and "message" in d for h in hooks for d in source_lines(h))


def test_without_the_source_the_landed_records_decide(corpus_root, corpus_source):
    """The corpus landed by claude-code-local 0.2.0: each list of one text block says so under dropped, so seed 003's
    rule needs no source line (a file landed earlier: tests/reading/test_prose_shape.py)."""
    sid = "0d3a8e6f-290f-4105-a327-a2496e5e2a83"  # three interrupt notices written as one-text-block lists
    by_src, sources, err = _prose_by_source(corpus_root, sid)  # CLAUDE_CONFIG_DIR is empty: no source to read
    (src,) = sources
    lists = user_lists_of_text(corpus_source / src)
    one_block = [x for x in lists if x[1] == "[Request interrupted by user for tool use]"]
    assert len(lists) == 4 and len(one_block) == 3
    assert by_src[src] == seed_003_prose(corpus_source / src)
    assert "could not be checked" not in err and "source lines" not in err


def test_thinking_adds_the_reasoning(corpus_root, corpus_source):
    sid = "55604662-cf2a-4331-851a-ec234028f8ca"
    plain = asz("export", sid[:8], "--format", "prose", "--root", str(corpus_root)).stdout.splitlines()
    more = asz("export", sid[:8], "--format", "prose", "--thinking", "--root", str(corpus_root)).stdout.splitlines()
    thinking = [b["thinking"] for d in source_lines(main_transcripts(corpus_source)[sid]) if d.get("type") == "assistant"
                for b in d["message"]["content"] if b.get("type") == "thinking" and b.get("thinking")]
    assert thinking and len(more) > len(plain)
    texts = "\n".join(json.loads(x)["text"] for x in more)
    assert all(t in texts for t in thinking)


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def _no_active_content(page: str) -> None:
    p = _Tags()
    p.feed(page)
    for tag, attrs in p.tags:
        assert tag not in ("script", "iframe", "object", "embed", "img", "link", "form", "base"), tag
        assert not any(k.startswith("on") for k in attrs), (tag, attrs)
        for k in ("href", "src", "action"):
            v = (attrs.get(k) or "").strip().lower()
            assert not v.startswith(("javascript:", "data:", "http:", "https:", "//")), (tag, attrs)


def test_the_html_export_is_one_inert_self_contained_file(canary_root, tmp_path):
    from view_server_helpers import CANARY_SESSION, XSS_PROMPT

    out = tmp_path / "c.html"
    asz("export", CANARY_SESSION[:6], "--format", "html", "--out", str(out), "--root", str(canary_root))
    page = out.read_text(encoding="utf-8")
    _no_active_content(page)
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in page  # the prompt is shown, as text
    assert XSS_PROMPT not in page


def test_the_html_export_stays_inert_in_a_browser(canary_root, tmp_path, browser):
    from view_server_helpers import CANARY_SESSION

    out = tmp_path / "c.html"
    asz("export", CANARY_SESSION, "--format", "html", "--out", str(out), "--root", str(canary_root))
    drv = browser
    drv.get("about:blank")
    drv.get(out.as_uri())
    assert drv.execute_script("return window.__pwned === undefined")
    assert "window.__pwned=1" in drv.find_element("tag name", "body").text  # shown as text
    assert drv.execute_script("return document.querySelectorAll('script,img').length") == 0


def test_a_folder_export_writes_an_index_linking_every_conversation(corpus_root, tmp_path):
    out = tmp_path / "since"
    p = asz("export", "--since", "2026-02-01T00:00:00Z", "--format", "html", "--out", str(out), "--root", str(corpus_root))
    assert "exported 3 conversation(s)" in p.stderr
    ids = sorted(x["id"] for x in asz_json("conversations", "--json", "--since", "2026-02-01T00:00:00Z", "--root", str(corpus_root)))
    assert sorted(f.stem for f in out.glob("*.html") if f.name != "index.html") == ids
    index = (out / "index.html").read_text(encoding="utf-8")
    for i in ids:
        assert f'href="{i}.html"' in index
    _no_active_content(index)
    md = tmp_path / "md"
    asz("export", "--since", "2026-02-01T00:00:00Z", "--out", str(md), "--root", str(corpus_root))
    assert all(f"]({i}.md)" in (md / "index.md").read_text(encoding="utf-8") for i in ids)
    assert asz("export", "--since", "2026-02-01", "--format", "json", "--root", str(corpus_root), check=False).returncode == 2
    assert asz("export", "--root", str(corpus_root), check=False).returncode == 2
    assert asz("export", "5", "--root", str(corpus_root), check=False).returncode == 2


def test_json_export_is_the_document(corpus_root):
    sid = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
    a = json.loads(asz("export", sid, "--format", "json", "--root", str(corpus_root)).stdout)
    b = json.loads(asz("conversation", sid, "--json", "--root", str(corpus_root)).stdout)
    assert a == b and a["format"] == "asz.view"


def test_markdown_export_holds_every_prompt_and_reply_whole(corpus_root, corpus_source):
    sid = "cb2e607c-c758-415a-8b45-c49e4631906a"
    md = asz("export", sid, "--root", str(corpus_root)).stdout
    for t in seed_003_prose(main_transcripts(corpus_source)[sid]):
        if t["role"] == "assistant":  # as written, its headings under the talk's (test_export_headings.py)
            assert nested(t["text"]) in md


def test_withheld_text_appears_in_no_row_hit_or_export(canary_root, tmp_path):
    from view_server_helpers import CANARY_SESSION, MARKER, write_config

    cfg = write_config(tmp_path / "asz.yaml", hide=["system_prompt", "tool_schemas"])
    r = str(canary_root)
    assert MARKER in asz("export", CANARY_SESSION, "--format", "json", "--root", r).stdout  # there when nothing is withheld
    outputs = [asz("conversations", "--json", "--root", r, "--config", str(cfg)).stdout,
               asz("ls", "--root", r, "--config", str(cfg)).stdout,
               asz("search", MARKER, "--json", "--root", r, "--config", str(cfg)).stdout,
               asz("search", "careful", "--json", "--root", r, "--config", str(cfg)).stdout,
               asz("show", CANARY_SESSION, "att-1", "--root", r, "--config", str(cfg)).stdout]
    for fmt in ("md", "html", "json", "prose"):
        p = asz("export", CANARY_SESSION, "--format", fmt, "--thinking", "--root", r, "--config", str(cfg))
        outputs += [p.stdout, p.stderr]
    folder = tmp_path / "all"
    asz("export", "--since", "2000-01-01", "--format", "html", "--out", str(folder), "--root", r, "--config", str(cfg))
    outputs += [f.read_text(encoding="utf-8") for f in folder.iterdir()]
    for text in outputs:
        assert MARKER not in text
    assert "omitted" in outputs[4]  # show printed the record, withheld


def test_an_out_that_cannot_be_written_is_one_line_not_a_traceback(corpus_root, tmp_path):
    """Trial 5, finding 4: --out under /proc, or a file where several conversations need a folder, was a traceback."""
    sid = "55604662-cf2a-4331-851a-ec234028f8ca"
    p = asz("export", sid, "--root", str(corpus_root), "--out", "/proc/nope/one.md", check=False)
    assert p.returncode == 1 and p.stderr.startswith("asz export: cannot write /proc/nope") and "Traceback" not in p.stderr
    p = asz("export", sid, "--root", str(corpus_root), "--out", "/proc/one.md", check=False)  # /proc is there
    assert p.returncode == 1 and p.stderr.splitlines()[-1] == "asz export: cannot write /proc/one.md: No such file or directory"  # 43c F10
    taken = tmp_path / "week.txt"  # not the format's suffix (a week.md gets the md stream: test_export_one_file.py)
    taken.write_text("mine\n")
    p = asz("export", "--since", "2000-01-01", "--root", str(corpus_root), "--out", str(taken), check=False)
    assert p.returncode == 2 and "several conversations go into a folder, and this is a file" in p.stderr
    assert taken.read_text() == "mine\n"


def test_an_out_whose_folder_is_missing_is_refused_and_nothing_is_made(corpus_root, tmp_path):
    """A new user's report: ``--out /nonexistent/dir/x.md`` made /nonexistent/dir silently. The folder --out is in must
    exist (exit 1, one line naming it); several conversations' --out DIR itself is made, never its parents."""
    sid = "55604662-cf2a-4331-851a-ec234028f8ca"
    gone = tmp_path / "nonexistent" / "dir"
    p = asz("export", sid, "--root", str(corpus_root), "--out", str(gone / "x.md"), check=False)
    assert (p.returncode, p.stdout) == (1, "")
    assert p.stderr == (f"asz export: cannot write {gone / 'x.md'}: no such folder {gone} (make it first: asz export "
                        "creates no folder but --out DIR itself)\n")
    assert not (tmp_path / "nonexistent").exists()
    p = asz("export", "--since", "2000-01-01", "--format", "html", "--root", str(corpus_root), "--out", str(gone / "all"), check=False)
    assert p.returncode == 1 and f"no such folder {gone} " in p.stderr and not (tmp_path / "nonexistent").exists()
    # the folder itself is made when its parent is there; a file in an existing folder is written
    asz("export", "--since", "2000-01-01", "--format", "html", "--root", str(corpus_root), "--out", str(tmp_path / "all"))
    assert (tmp_path / "all" / "index.html").is_file() and (tmp_path / "all" / f"{sid}.html").is_file()
    asz("export", sid, "--root", str(corpus_root), "--out", str(tmp_path / "one.md"))
    assert (tmp_path / "one.md").read_text(encoding="utf-8").startswith("# ")
