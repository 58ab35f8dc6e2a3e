"""Trial 25b F1, F2, F7: credentials are masked in each text before it is placed, a cut text masked before it is cut,
and the audit header says what the parts it leaves out held.

F1: a PEM private key whose text was cut before its ``-----END`` line (a title at 100 characters, a tool call's audit
line at 200, a JSON text clipped at 2,000 bytes) ran on to the next ``-----END`` anywhere later in the written file,
taking line breaks, HTML markup and JSON structure with it. F2: the audit cut a tool call's line at 200 characters
before masking it, so a token the cut went through left ``ghp_`` and 13 characters whole, uncounted. F7: the audit
header said nothing of the credentials in tool results it leaves out, nor of the Edit/Write contents it drops.

The spotter transcript of the shared corpus gets four different PEM keys and three tokens of forms ``asz secrets``
knows, each placed at one cut (docs/reading.md, "Credentials"); every count below is made from what is planted."""

from __future__ import annotations

import base64
import hashlib
import json

from html.parser import HTMLParser
from pathlib import Path

import pytest

from asz_core.reading.prose_audit import coverage
from asz_core.view.secret_forms import LEFT_OUT, Masker, find, masked_cut, redacted

from cli_helpers import asz_in_process
from reading_helpers import planted_root, source_lines

SPOTTER = "claude-code/projects/-home-user-spotter/55604662-cf2a-4331-851a-ec234028f8ca.jsonl"
EDITS = "claude-code/projects/-Users-alex-workspace-claude-code-log-sample/0d3a8e6f-290f-4105-a327-a2496e5e2a83.jsonl"
GITHUB = "ghp_" + "R8vQ2xLm" * 4 + "Zt7K"
AWS = "AKIAIOSFODNN7EXAMPLE"  # AWS's documented example access key id
JWT = ("eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtc"
       "GxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")  # RFC 7519 §3.1


def pem(seed: str) -> str:
    """A PEM RSA private key of 8 base64 lines of 64 characters (made from ``seed``: each key differs)."""
    body = base64.b64encode(b"".join(hashlib.sha512(f"{seed}{i}".encode()).digest() for i in range(6))).decode()
    return "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(body[i:i + 64] for i in range(0, 512, 64)) + \
        "\n-----END RSA PRIVATE KEY-----"


PROMPT_KEY, BASH_KEY, CLIPPED_KEY, LATER_KEY = (pem(s) for s in ("prompt", "bash", "clipped", "later"))
#: A piece of every planted value that a masked copy must not hold (a PEM's base64 lines, a token past its first 4)
PIECES = [line[:20] for key in (PROMPT_KEY, BASH_KEY, CLIPPED_KEY, LATER_KEY) for line in key.splitlines()[1:-1]] + \
    [v[4:20] for v in (GITHUB, AWS, JWT)]
PADDING = "a" * 178  # the Glob path's: the token starts at 184 of its 200-character audit line


def _plant(lines: list[dict]) -> None:
    """The prompt (line 4) holds a whole key, which its title (100 characters) cuts; the Bash call (line 8) a key in a
    heredoc that its audit line (200 characters) cuts, and an AWS key id past the cut; the Glob call (line 10) a
    GitHub token in its path that the 200-character cut goes through; the first tool result (line 11) a key from
    character 1,900, which the asz.view document's 2,000-byte clip cuts; the second (line 12) a whole key and a JWT:
    the next ``-----END`` line after each cut key."""
    lines[3]["message"]["content"] = f"Use this deploy key for the box: {PROMPT_KEY}\nthanks"
    bash = lines[7]["message"]["content"][0]["input"]
    bash["command"] = f"cat > /tmp/k.pem <<'EOF'\n{BASH_KEY}\nEOF\necho {'b' * 200} && AWS_ACCESS_KEY_ID={AWS} ./deploy.sh"
    lines[9]["message"]["content"][0]["input"]["path"] = f"/tmp/{PADDING}/{GITHUB}"
    lines[10]["message"]["content"][0]["content"] = "z" * 1900 + CLIPPED_KEY + "\ntail of the first result"
    lines[11]["message"]["content"][0]["content"] = f"later note: the old key was\n{LATER_KEY}\nand {JWT}\nend"
    # a result the audit leaves out: the corpus's two results here are refusals (is_error), whose planted text is no
    # refusal, and a failed call's error text is written (render 11, tests/reading/test_text_failures.py)
    lines[10]["message"]["content"][0]["is_error"] = False
    lines[11]["message"]["content"][0]["is_error"] = False


@pytest.fixture(scope="module")
def planted(tmp_path_factory, corpus_dir) -> Path:
    return planted_root(corpus_dir, tmp_path_factory.mktemp("cut_keys"), SPOTTER, _plant)


def _export(root: Path, *args: str):
    p = asz_in_process("export", "55604662", *args, "--root", str(root))
    assert p.returncode == 0, p.stderr
    return p


def _leaks(text: str) -> list[str]:
    return [p for p in PIECES if p in text]


class _Tags(HTMLParser):
    """Every element opened is closed, in order (void elements aside): the page is well formed."""
    VOID = frozenset({"meta", "br", "img", "hr", "input", "link"})

    def __init__(self):
        super().__init__()
        self.open, self.wrong, self.seen = [], [], []

    def handle_starttag(self, tag, attrs):
        self.seen.append(tag)
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_endtag(self, tag):
        if not self.open or self.open[-1] != tag:
            self.wrong.append(tag)
        else:
            self.open.pop()


def _tags(page: str) -> _Tags:
    got = _Tags()
    got.feed(page)
    return got


def test_a_cut_key_is_masked_to_the_end_of_its_own_text_only():
    """The unit: a key cut before its end line is masked to the end of its text, never past a character that is
    not base64 or a line break; a whole one to its end line; masking a masked text changes and counts nothing."""
    cut = PROMPT_KEY[:90]
    assert redacted(f'{{"a":"{cut}","b":"after"}}')[0] == '{"a":"-----BEGIN RSA PRIVATE KEY-----' + LEFT_OUT + '","b":"after"}'
    assert redacted(f"<p>{cut}</p><p>{LATER_KEY}</p>")[0] == \
        f"<p>-----BEGIN RSA PRIVATE KEY-----{LEFT_OUT}</p><p>-----BEGIN RSA PRIVATE KEY-----{LEFT_OUT}</p>"
    once, marks = redacted(f"x {PROMPT_KEY} y {cut}")
    assert once == f"x -----BEGIN RSA PRIVATE KEY-----{LEFT_OUT} y -----BEGIN RSA PRIVATE KEY-----{LEFT_OUT}"
    assert len(marks) == 2 and redacted(once) == (once, [])
    title = once[:50] + "…"  # a title masked, then cut inside the mark: still masked
    assert redacted(title) == (title, [])
    # one key's lines broken otherwise (a line collapsed to spaces, JSON's \n) is one credential
    assert redacted(PROMPT_KEY)[1] == redacted(" ".join(PROMPT_KEY.split()))[1] == \
        redacted(json.dumps(PROMPT_KEY)[1:-1])[1]


def test_a_text_is_masked_before_it_is_cut():
    """F2's unit: the token the cut goes through is masked whole first; one beyond the cut is said as cut away."""
    text = f"{PADDING} {GITHUB} then {'c' * 30} {AWS}"
    shown, written, away = masked_cut(text, lambda t: t[:199] + "…")
    assert shown == f"{PADDING} ghp_…{GITHUB[-4:]} then {'c' * 5}…"
    assert (len(written), len(away)) == (1, 1)
    m = Masker(True)
    assert m.tree({"k": [text, ("x", text)]}) == {"k": [redacted(text)[0], ("x", redacted(text)[0])]}
    assert len(m.gone) == 4


@pytest.mark.parametrize("fmt", ["md", "html", "json"])
def test_every_format_keeps_its_shape_and_holds_no_key(planted, fmt):
    """F1: md, html and json with --redact hold no piece of any planted value, and lose nothing else: the same
    headings, steps and markup as the copy written whole, the JSON the same keys in the same places; stderr counts
    the 7 planted credentials (md, html: one place each, the title's masked before, not counted)."""
    whole = _export(planted, "--format", fmt, *(("--no-redact",) if fmt != "json" else ()))  # md, html: trial 34c F8
    masked = _export(planted, "--format", fmt, "--redact")
    assert len(_leaks(whole.stdout)) == len(PIECES) - (fmt == "json") * 7  # the clip keeps one line of that key
    assert _leaks(masked.stdout) == []
    if fmt == "json":
        a, b = json.loads(whole.stdout), json.loads(masked.stdout)

        def shape(x):
            return {k: shape(v) for k, v in x.items()} if isinstance(x, dict) else \
                [shape(v) for v in x] if isinstance(x, list) else type(x).__name__
        assert shape(a) == shape(b)
        assert masked.stdout.count(LEFT_OUT) >= 4
        clipped = [n for t in b["talks"] for n in _nodes(t) if isinstance(n.get("result"), str) and "z" * 1900 in n["result"]]
        assert [n["result"] for n in clipped] == ["z" * 1900 + "-----BEGIN RSA PRIVATE KEY-----" + LEFT_OUT
                                                  + "\ntail of the first result"]  # masked whole, then clipped
        # the talk's label holds the prompt's text again: one place of the conversation, counted as md and html count
        # it (it read 8 places: the document's two copies of one text counted apart)
        assert "masked 7 place(s) of 7 credential(s)" in masked.stderr
        return
    assert "masked 7 place(s) of 7 credential(s)" in masked.stderr
    assert "7 place(s) of 7 credential(s) of a known form written whole" in whole.stderr
    if fmt == "md":
        heads = [ln for ln in whole.stdout.splitlines() if ln.startswith(("#", "- ", "**"))]
        assert [redacted(ln)[0] for ln in heads] == [ln for ln in masked.stdout.splitlines() if ln.startswith(("#", "- ", "**"))]
        assert masked.stdout.splitlines()[2] == "- conversation: `55604662-cf2a-4331-851a-ec234028f8ca`"
        return
    a, b = _tags(whole.stdout), _tags(masked.stdout)
    assert (b.open, b.wrong) == ([], []) and a.seen == b.seen
    assert "</title><style>" in masked.stdout and "<h1" in masked.stdout


def _nodes(node: dict):
    yield node
    for c in node.get("children") or ():
        yield from _nodes(c)


def test_the_audit_masks_before_it_cuts_and_says_what_it_left_out(planted):
    """F1, F2, F7 in the audit form: one JSON object a line, the same lines as --no-redact; the Glob line's token
    masked before the 200-character cut (ghp_…Zt7K, nothing of its middle); the header's credentials: 3 written (the
    prompt's key, the Bash call's key, the token), 4 in parts the form leaves out and in no line (the AWS key id the
    Bash line's cut took away, the clipped key, the later key and the JWT of the results); stderr says both."""
    masked = _export(planted, "--audit")
    whole = _export(planted, "--audit", "--no-redact")
    lines = [json.loads(ln) for ln in masked.stdout.splitlines()]
    assert [(x["kind"], x.get("row")) for x in lines] == [(x["kind"], x.get("row")) for x in map(json.loads, whole.stdout.splitlines())]
    assert _leaks(masked.stdout) == []
    glob = next(x for x in lines if x.get("tool") == "Glob")
    assert glob["text"] == f"Glob: /tmp/{PADDING}/ghp_…{GITHUB[-4:]}"  # 193 characters once masked: not cut
    bash = next(x for x in lines if x.get("tool") == "Bash")
    assert bash["text"] == ("Bash: " + ("cat > /tmp/k.pem <<'EOF' -----BEGIN RSA PRIVATE KEY-----" + LEFT_OUT
                                        + " EOF echo " + "b" * 200)[:199] + "…")  # the key masked whole, then cut
    head = lines[0]
    assert head["kind"] == "conversation" and LEFT_OUT in head["title"]
    assert head["credentials"] == {"masked": True, "written": {"places": 3, "credentials": 3},
                                   "left_out": {"places": 4, "credentials": 4, "not_written": 4}, **coverage()}
    assert head["left_out"]["tool_inputs_cut"] == 1  # the Bash line
    assert ("--audit masked 3 place(s) of 3 credential(s) (the audit form masks them by default; --no-redact keeps "
            "them whole); 4 more credential(s) stood only in parts the audit leaves out") in masked.stderr


def test_the_audit_written_whole_counts_the_inputs_it_cuts(planted):
    """--audit --no-redact writes each tool call's line whole, cut at 200 characters: its left_out.tool_inputs_cut
    counts the cut of that text, not of the masked one (the Glob path of 6 + 5 + 178 + 1 + 40 characters is cut
    there, as the Bash heredoc is; masked, the Glob line is 193 characters and only the Bash line is cut)."""
    for args, want in ((("--audit",), 1), (("--audit", "--no-redact"), 2)):
        lines = [json.loads(ln) for ln in _export(planted, *args).stdout.splitlines()]
        cut = [x["tool"] for x in lines if x.get("kind") == "tool_call" and x["text"].endswith("…")]
        assert lines[0]["left_out"]["tool_inputs_cut"] == len(cut) == want, (args, cut)


def test_a_talk_label_clipped_through_a_token_is_masked_whole_first(tmp_path, corpus_dir):
    """A first prompt of 1,990 + 1 characters and a GitHub token: the asz.view document clips the talk's label (and
    the prompt's text) at 2,000 bytes, through the token's 9th character. --format json --redact masks the whole
    prompt from the records, then clips it: the label reads ``ghp_…`` and the token's characters past ``ghp_``
    are nowhere (they were: ``ghp_R8vQ2``, uncounted); the label, the prompt's text again, is not counted apart."""
    prompt = "p" * 1990 + " " + GITHUB + " end"

    def plant(lines):
        lines[3]["message"]["content"] = prompt

    root = planted_root(corpus_dir, tmp_path, SPOTTER, plant)
    whole = json.loads(_export(root, "--format", "json").stdout)
    assert whole["talks"][0]["label"] == prompt[:2000]  # the clip as built: through the token
    masked = _export(root, "--format", "json", "--redact")
    doc = json.loads(masked.stdout)
    label = doc["talks"][0]["label"]
    assert label.startswith("p" * 1990 + " ghp_…") and len(label.encode()) <= 2000
    assert GITHUB[4:9] not in masked.stdout and "masked 1 place(s) of 1 credential(s)" in masked.stderr  # the label: a copy


def test_edit_contents_are_counted(tmp_path, corpus_dir):
    """F7: each Edit, Write or MultiEdit call's line gives its path; the header's left_out counts those whose input
    carried file contents the line leaves out (edit_contents), by the transcript's own tool_use blocks."""
    root = planted_root(corpus_dir, tmp_path, EDITS, lambda lines: None)
    calls = {b["id"]: b for line in source_lines(corpus_dir / EDITS) if isinstance((line.get("message") or {}).get("content"), list)
             for b in line["message"]["content"] if b.get("type") == "tool_use"}
    want = sum(b["name"] in ("Edit", "Write", "MultiEdit") for b in calls.values())
    assert want == 5
    p = asz_in_process("export", "0d3a8e6f", "--audit", "--root", str(root))
    assert p.returncode == 0, p.stderr
    head = json.loads(p.stdout.splitlines()[0])
    assert head["left_out"]["edit_contents"] == want
    assert head["credentials"]["written"] == {"places": 0, "credentials": 0}
    assert not find(p.stdout)


def test_the_brief_form_masks_what_it_writes(planted):
    """--brief --redact: the prompt's key and the Bash call's one-line gist (masked, then cut at 120 characters) are
    the 2 places it writes; the token past the Glob gist's cut and the results it leaves out are neither written nor
    counted; nothing planted is in it, and the same lines as the copy written whole."""
    whole = _export(planted, "--brief")
    masked = _export(planted, "--brief", "--redact")
    assert _leaks(masked.stdout) == [] and GITHUB[:4] not in masked.stdout
    assert "masked 2 place(s) of 2 credential(s)" in masked.stderr
    bash = next(ln for ln in masked.stdout.splitlines() if ln.startswith("- Tool **Bash**"))
    assert bash.startswith("- Tool **Bash** `cat > /tmp/k.pem <<'EOF' -----BEGIN RSA PRIVATE KEY-----" + LEFT_OUT + " EOF echo b")
    heads = [ln for ln in whole.stdout.splitlines() if ln.startswith(("#", "**", "- Tool"))]
    assert len(heads) == len([ln for ln in masked.stdout.splitlines() if ln.startswith(("#", "**", "- Tool"))])
