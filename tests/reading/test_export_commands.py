"""A command typed locally or in bash mode is exported as typed, its output preformatted without terminal codes; a
talk whose only prompt is a bash-mode command's output is headed by the command (docs/view.md, "Commands and their
output").

Claude Code records ``/model`` as ``<command-name>/model</command-name><command-message>…<command-args>…`` and its
output as ``<local-command-stdout>`` with terminal colour codes (the corpus's a7da6a22, fe869ecb, 5c0375b4), and
``!uv run ty check`` as ``<bash-input>`` in one record and ``<bash-stdout>``/``<bash-stderr>`` in the next, whose
``parentUuid`` is the first (326189cf). Every expected value is read from the source transcripts here; the JSON
export keeps the text as it landed.
"""

from __future__ import annotations

import html
import json
import re

import pytest
from reading_helpers import asz, collect_before_bash_output_rule, source_lines

from asz_core.view import build_view
from asz_core.view.titles import talk_headings

DEEP = ("-src-deep-manifest", "a7da6a22-facc-4fcd-8bab-f83c87862004")  # /context, /model, then the work
LOG = ("-Users-alex-workspace-claude-code-log-sample", "fe869ecb-c176-478f-9734-7e4b8ef12cff")  # an older `clear`
ORCH = ("-home-user-sample-project", "5c0375b4-57a5-4f26-b12d-d022ee4e51b7")  # a command with arguments
BASH = ("-Users-alex-workspace-claude-code-log-sample", "326189cf-5676-4237-8cde-1ce80aae4a9f")  # !uv run ty check
#: A whole CSI sequence (ECMA-48 5.4), as the test reads the source's colour codes.
CSI = re.compile("\x1b\\[[0-?]*[ -/]*[@-~]")


def _typed(corpus_source, which) -> list[dict]:
    """The source's ``user`` lines whose content is a string, in file order."""
    return [d for d in source_lines(corpus_source / which[0] / f"{which[1]}.jsonl")
            if d.get("type") == "user" and isinstance(d["message"].get("content"), str)]


def _inside(text: str, tag: str) -> str:
    """What the source holds between ``<tag>`` and ``</tag>``."""
    return text.split(f"<{tag}>", 1)[1].split(f"</{tag}>", 1)[0]


def _export(root, which, fmt: str) -> str:
    return asz("export", which[1][:8], "--format", fmt, "--root", str(root)).stdout


def test_a_local_command_and_its_output_read_as_typed_in_markdown_and_html(corpus_root, corpus_source):
    lines = _typed(corpus_source, DEEP)
    context, model, said = lines[1]["message"]["content"], lines[4]["message"]["content"], lines[5]["message"]["content"]
    assert _inside(context, "command-name") == "/context" and _inside(context, "command-args") == ""
    assert _inside(model, "command-name") == "/model" and _inside(model, "command-args") == ""
    assert said.startswith("<local-command-stdout>") and "\x1b[1m" in said
    output = CSI.sub("", _inside(said, "local-command-stdout"))
    assert output == "Set model to opus (claude-opus-4-5-20251101)"
    md = _export(corpus_root, DEEP, "md")
    assert "\n`/context`\n" in md and "\n`/model`\n" in md
    assert f"\n```\n{output}\n```\n" in md
    for markup in ("<command-name>", "<command-message>", "<command-args>", "<local-command-stdout>", "\x1b"):
        assert markup not in md, markup
    page = _export(corpus_root, DEEP, "html")
    assert '<p class="command"><code>/context</code></p>' in page and '<p class="command"><code>/model</code></p>' in page
    assert f'<pre class="stdout">{html.escape(output)}</pre>' in page
    for markup in ("&lt;command-name&gt;", "&lt;local-command-stdout&gt;", "\\x1b"):
        assert markup not in page, markup
    # the JSON keeps every byte the records hold
    doc = json.loads(_export(corpus_root, DEEP, "json"))
    texts = [n.get("text") for t in doc["talks"] for n in _walk(t)]
    assert doc["talks"][0]["label"] == context and said in texts


def _walk(node: dict):
    for c in node.get("children") or ():
        yield c
        yield from _walk(c)


def test_an_older_command_with_no_slash_and_an_empty_output(corpus_root, corpus_source):
    lines = _typed(corpus_source, LOG)
    clear = next(d["message"]["content"] for d in lines if "<command-name>" in d["message"]["content"])
    assert _inside(clear, "command-name") == "clear"  # Claude Code of 2025-06 wrote no slash
    empty = next(d["message"]["content"] for d in lines if d["message"]["content"].startswith("<local-command-stdout>"))
    assert _inside(empty, "local-command-stdout") == ""
    talk = _export(corpus_root, LOG, "md").split("\n## Talk 3: /clear\n", 1)[1]  # the last talk (the tools read markup)
    assert "\n`/clear`\n" in talk and "\n```\n(no output)\n```\n" in talk
    assert "<command-name>" not in talk and "<local-command-stdout>" not in talk
    assert '<pre class="stdout">(no output)</pre>' in _export(corpus_root, LOG, "html")


def test_a_command_with_arguments_reads_as_typed(corpus_root, corpus_source):
    first = _typed(corpus_source, ORCH)[0]["message"]["content"]
    typed = f"{_inside(first, 'command-name')} {_inside(first, 'command-args')}"
    assert typed == "/orchestrator @CLAUDE.md を最新の状態にアップデートしてください"
    md = _export(corpus_root, ORCH, "md")
    assert f"## Talk 1: {typed}" in md and f"\n`{typed}`\n" in md and "command-message" not in md


#: The string contents Claude Code writes into a ``user`` line itself, never typed (docs/adapters/claude-code.md,
#: "Triggers and external_input"): a task notification, a slash command's output, a bash-mode command's output.
RUNTIME_WRITTEN = ("<task-notification>", "<local-command-stdout>", "<local-command-stderr>", "<bash-stdout>", "<bash-stderr>")


def test_a_bash_mode_command_and_its_output_are_one_talk(corpus_root, corpus_source):
    """326189cf (no ``origin`` keys): the person typed ``!uv run ty check`` and then one question; the output's record
    joins the command's talk, as a slash command's ``<local-command-stdout>`` does (trial 16b, finding 8)."""
    lines = source_lines(corpus_source / BASH[0] / f"{BASH[1]}.jsonl")
    assert not any("origin" in d for d in lines)
    typed = [d["message"]["content"] for d in lines
             if d.get("type") == "user" and not d.get("isMeta") and not d.get("isSidechain") and "toolUseResult" not in d
             and isinstance(d["message"].get("content"), str) and not d["message"]["content"].lstrip().startswith(RUNTIME_WRITTEN)]
    assert typed == ["<bash-input>uv run ty check</bash-input>", "please fix these"]  # two talks by the rule
    shown = _typed(corpus_source, BASH)[2]["message"]["content"]
    out, err = _inside(shown, "bash-stdout"), _inside(shown, "bash-stderr")
    md = _export(corpus_root, BASH, "md")
    heads = [ln for ln in md.splitlines() if ln.startswith("## Talk ")]
    assert heads == ["## Talk 1: ! uv run ty check", "## Talk 2: please fix these"]
    talk1 = md.split("## Talk 2: ")[0]
    assert "\n`! uv run ty check`\n" in talk1
    assert f"\n```\n{out.strip(chr(10))}\n```\n\n*stderr*\n\n```\n{err.strip(chr(10))}\n```\n" in talk1
    doc = json.loads(_export(corpus_root, BASH, "json"))
    assert [t["label"] for t in doc["talks"]] == typed
    ls = asz("ls", "--root", str(corpus_root)).stdout
    [row] = [ln for ln in ls.splitlines() if ln.startswith(BASH[1][:8])]
    assert row.split()[-7] == "2"  # TALKS (RUNTIME before STATE: trial 23a, F1)


@pytest.fixture(scope="module")
def before_rule_root(corpus_source, tmp_path_factory):
    """326189cf as the adapter landed it before its bash-mode output stopped being a typed prompt: three talks."""
    base = tmp_path_factory.mktemp("bash-before")
    (base / "projects" / BASH[0]).mkdir(parents=True)
    (base / "projects" / BASH[0] / f"{BASH[1]}.jsonl").write_bytes((corpus_source / BASH[0] / f"{BASH[1]}.jsonl").read_bytes())
    collect_before_bash_output_rule(base / "projects", base / "root")
    return base / "root"


def test_a_bash_mode_output_talk_is_headed_by_its_command_and_its_output_preformatted(before_rule_root, corpus_source):
    """A root landed before the rule above holds the output as a talk of its own: it is headed by its command."""
    corpus_root = before_rule_root
    lines = _typed(corpus_source, BASH)
    typed, shown = lines[1], lines[2]
    assert typed["message"]["content"] == "<bash-input>uv run ty check</bash-input>"
    assert shown["parentUuid"] == typed["uuid"]  # the output's record names the command's as its parent
    out, err = _inside(shown["message"]["content"], "bash-stdout"), _inside(shown["message"]["content"], "bash-stderr")
    assert out.startswith("warning[possibly-unbound-attribute]") and out.endswith("Found 2 diagnostics\n")
    assert err.startswith("WARN ty is pre-release software")
    md = _export(corpus_root, BASH, "md")
    heads = [ln for ln in md.splitlines() if ln.startswith("## Talk ")]
    assert heads == ["## Talk 1: ! uv run ty check", "## Talk 2: ! uv run ty check", "## Talk 3: please fix these"]
    assert "\n`! uv run ty check`\n" in md
    assert f"\n```\n{out.strip(chr(10))}\n```\n\n*stderr*\n\n```\n{err.strip(chr(10))}\n```\n" in md
    assert "bash-stdout" not in md and "bash-input" not in md
    page = _export(corpus_root, BASH, "html")
    assert "Talk 2: <bdi>! uv run ty check</bdi></h2>" in page
    assert f'<pre class="stdout">{html.escape(out.strip(chr(10)))}</pre>' in page
    assert f'<pre class="stderr">{html.escape(err.strip(chr(10)))}</pre>' in page
    assert "bash-stdout" not in page
    doc = json.loads(_export(corpus_root, BASH, "json"))
    assert doc["talks"][1]["label"] == shown["message"]["content"]  # the document keeps the record's text


def test_without_the_records_an_output_talk_is_headed_by_its_output_never_its_tags(before_rule_root, corpus_source):
    """The command is read only where the output's record names it as its parent: with no records to read, the
    heading is the output's own text."""
    out = _inside(_typed(corpus_source, BASH)[2]["message"]["content"], "bash-stdout")
    doc = build_view(before_rule_root, BASH[1])
    heads = talk_headings(doc, "claude-code/1", 80)
    got = heads[doc["talks"][1]["id"]]
    assert got.endswith("…") and " ".join(out.split()).startswith(got[:-1].rstrip()) and "<" not in got


SYSTEM_COMMAND = ("-home-user-spotter", "55604662-cf2a-4331-851a-ec234028f8ca")  # /model as a system local_command line


def test_a_system_local_command_is_headed_as_typed(corpus_root, corpus_source):
    """Claude Code 2.x writes ``/model`` and its output as ``system`` lines of subtype ``local_command``: the md export
    heads them ``Command (/model)`` and ``Command (<the output's text>)``, not their markup (trial 17, F12)."""
    said = [d["content"] for d in source_lines(corpus_source / SYSTEM_COMMAND[0] / f"{SYSTEM_COMMAND[1]}.jsonl")
            if d.get("type") == "system" and d.get("subtype") == "local_command"]
    assert len(said) == 2 and _inside(said[0], "command-name") == "/model" and _inside(said[0], "command-args") == ""
    output = " ".join(CSI.sub("", _inside(said[1], "local-command-stdout")).split())
    assert output == "Kept model as Default (recommended)"
    md = _export(corpus_root, SYSTEM_COMMAND, "md")
    heads = [x.split(" · ")[0] for x in md.splitlines() if x.startswith("**Command")]  # the record below is drawn whole
    assert heads == ["**Command (/model)**", f"**Command ({output})**"], heads
