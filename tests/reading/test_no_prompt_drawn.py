"""A conversation with no prompt keeps its content in every format (trial 43b F1): its model call is a ``loose`` node
under no talk (an ``llm.call`` holding the reply and the tool calls), which md and html passed over (``step`` of the
call is None, so its children were never drawn: ``grep -c`` of the reply gave 0 in md and html, 3 in text); and
``asz conversation`` said ``0 talks`` beside ``costliest talks: 1 of 1``.

Real input: the corpus's 55604662 (one prompt, a reply, two tool calls the person refused, an interrupt) copied with
its prompt lines removed (no talk at all: the content goes under ``Outside any talk``) and with its one prompt line cut
in half so it does not parse (its interrupt notice is the runtime's since trial 43c F1, no talk's opener: no talk
either, the unreadable line kept as an unknown part). The
texts checked are read straight from the source lines, never from asz's output.
"""

from __future__ import annotations

import html
import json
import re

import pytest
from reading_helpers import as_copy, asz

SID = "55604662-cf2a-4331-851a-ec234028f8ca"
PROJ = "-home-user-spotter"


def _typed(d: dict) -> bool:
    """A person's line: a user line whose content is a string or holds a text block (not a tool result)."""
    c = (d.get("message") or {}).get("content")
    return d.get("type") == "user" and (isinstance(c, str) or any(b.get("type") == "text" for b in c or ()))


def _read(lines: list[bytes]):
    """Each source line that parses, as a dict (the prompt cut in half does not: it holds no text to find)."""
    for line in lines:
        try:
            yield json.loads(line)
        except json.JSONDecodeError:
            continue


def _texts(lines: list[bytes]) -> dict[str, list[str]]:
    """What the source's assistant and tool-result lines hold, by what holds it: ``reply`` each non-blank text block,
    ``input`` each string a tool call was given, ``result`` each tool result's text (the first line of each, enough to
    find it)."""
    out: dict[str, list[str]] = {"reply": [], "input": [], "result": []}
    for d in _read(lines):
        for b in (d.get("message") or {}).get("content") or ():
            what = {"text": "reply", "tool_use": "input", "tool_result": "result"}.get(b.get("type")) if isinstance(b, dict) else None
            what = None if what == "reply" and d.get("type") != "assistant" else what  # a person's interrupt is no reply
            got = [b.get("text")] if what == "reply" else list((b.get("input") or {}).values()) if what == "input" else [b.get("content")]
            out[what or "reply"] += [g.strip().splitlines()[0] for g in got if what and isinstance(g, str) and g.strip()]
    return out


@pytest.fixture(scope="module")
def roots(corpus_source, tmp_path_factory):
    """``{"none": (root, texts), "cut": (root, texts)}``: the session with its prompt lines removed, and with its one
    prompt cut so that it does not parse; each collected by the real ``asz collect --once``."""
    lines = (corpus_source / PROJ / f"{SID}.jsonl").read_bytes().splitlines(keepends=True)
    prompt = next(i for i, x in enumerate(lines) if isinstance((json.loads(x).get("message") or {}).get("content"), str))
    variants = {"none": [x for x in lines if not _typed(json.loads(x))],
                "cut": [*lines[:prompt], lines[prompt][:len(lines[prompt]) // 2] + b"\n", *lines[prompt + 1:]]}
    out = {}
    for name, kept in variants.items():
        base = tmp_path_factory.mktemp(f"noprompt-{name}")
        (base / "src" / PROJ).mkdir(parents=True)
        (base / "src" / PROJ / f"{SID}.jsonl").write_bytes(b"".join(kept))
        asz("collect", "--once", "--source", str(base / "src"), "--root", str(base / "root"))
        out[name] = base / "root", _texts(kept)
    return out


def _strings(v) -> list[str]:
    if isinstance(v, str):
        return [v]
    items = v.values() if isinstance(v, dict) else v if isinstance(v, list) else ()
    return [s for x in items for s in _strings(x)]


@pytest.mark.parametrize("variant", ["none", "cut"])
def test_every_format_draws_what_a_conversation_with_no_prompt_holds(roots, variant):
    """md, html and json draw every reply, tool input and result; the text form (the audit form: a tool call as one
    line, its result left out and counted) every reply, one ``tool_call`` line a call and the results' count."""
    root, texts = roots[variant]
    calls = sum(b.get("type") == "tool_use" for d in _read((root.parent / "src" / PROJ / f"{SID}.jsonl").read_bytes().splitlines())
                for b in (d.get("message") or {}).get("content") or () if isinstance(b, dict))
    assert len(texts["reply"]) == 1 and calls == 2 and len(texts["result"]) == 2, texts
    got = {f: asz("export", SID, "--root", str(root), "--format", f).stdout for f in ("md", "html", "text", "json")}
    got["html"] = html.unescape(got["html"])
    got["json"] = "\n".join(_strings(json.loads(got["json"])))
    for f in ("md", "html", "json"):
        missing = [t for t in texts["reply"] + texts["input"] + texts["result"] if t not in got[f]]
        assert not missing, (variant, f, missing)
    assert all(f"| {t}" in got["text"] for t in texts["reply"]), got["text"]
    assert len(re.findall(r"^\[[^]]+\] tool_call", got["text"], re.M)) == calls, got["text"]
    assert f"left_out: tool_results {len(texts['result'])}," in got["text"], got["text"]
    if variant == "none":  # no talk: drawn apart, as docs/reading.md says
        assert got["md"].count("\n## Outside any talk\n") == 1 and "Outside any talk</h2>" in got["html"]
        assert got["md"].index("## Outside any talk") < got["md"].index(texts["reply"][0])


def test_conversation_counts_no_talk_as_a_talk_and_says_where_its_steps_are(roots):
    root, _ = roots["none"]
    out = asz("conversation", SID, "--root", str(root)).stdout.splitlines()
    state = next(x for x in out if x.startswith("state "))
    steps = int(re.search(r": 0 talks, (\d+) steps,", state).group(1))
    cov = next(x for x in out if x.startswith("coverage "))
    assert f"; {steps} step(s) under no talk, drawn as the exports' 'Outside any talk')" in cov, cov
    at = next(i for i, x in enumerate(out) if x.startswith("costliest talks: "))
    assert out[at] == "costliest talks: none, no talk made model calls; the calls in no talk are the cost above", out[at]
    assert out[at + 1].endswith(", 1 call(s), calls in no talk") and out[at + 1].startswith("  $0.14 (100%)"), out[at + 1]
    cut = asz("conversation", SID, "--root", str(roots["cut"][0])).stdout
    assert ": 0 talks," in cut and "costliest talks: none, no talk made model calls;" in cut, cut  # the notice: no talk


def test_a_copy_drawn_before_render_18_still_checks(roots, tmp_path):
    """Render 17 drew none of these steps: its copy (its manifest saying render 17) still checks, made again as
    render 17 drew it, and not as render 18 (its bytes are not today's); today's copy holds the reply."""
    from asz_core.reading.export_render import drawing

    root, texts = roots["none"]
    with drawing(17):
        asz("export", SID, "--format", "md", "--out", str(tmp_path / "c.md"), "--root", str(root))
    body = json.loads((tmp_path / "c.md.manifest.json").read_bytes())
    old = (tmp_path / "c.md").read_bytes()
    assert texts["reply"][0].encode() not in old
    for render, rc in ((17, 0), (18, 1)):
        ok = asz("verify", "--export", as_copy(tmp_path, f"r{render}.md", old, {**body, "render": render}), "--root", str(root), check=False)
        assert ok.returncode == rc, (render, ok.stdout + ok.stderr)
    asz("export", SID, "--format", "md", "--out", str(tmp_path / "now.md"), "--root", str(root))
    assert texts["reply"][0] in (tmp_path / "now.md").read_text()
    assert asz("verify", "--export", str(tmp_path / "now.md"), "--root", str(root), check=False).returncode == 0
