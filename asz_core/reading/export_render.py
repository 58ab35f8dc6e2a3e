"""What the exports' rendering changed, so that a copy made before a change still checks (``asz verify --export``).

``asz verify --export FILE --root ROOT`` makes the copy again with the asz that checks and compares the two byte for
byte (:func:`~asz_core.reading.export_manifest.check_against_root`). A line the rendering drew differently then
reads as a changed text, though nobody changed it. So each change to what an md or html copy draws of the same
evidence takes a new render number: the manifest written beside every copy says the one it was made with (its
``render`` key; a manifest without one is render 1), and the copy made again is brought back to that rendering
before it is compared, by removing only what the later rendering added (never a landed text, so nothing a copy
could hide behind it).

What each render changed, render by render (1 to :data:`RENDER`), is :mod:`~asz_core.reading.export_render_history`
(moved there from this docstring to keep this module under the layout limit).

Two changes took no number, so a manifest alone cannot tell which drawing made its copy (:func:`drawings`):

- f7840f1b (2026-12-05 22:06, trial 32a F8) changed the cost lines (``$0.00*`` became ``<$0.01*``, the cost by kind
  no longer apportioned in cents, a cost none of whose tokens had a price ``cost unpriced (no price for …)``):
  every copy of renders 1 and 2 drew the older lines, a copy of render 3 either
  (:func:`~asz_core.view.prices.cents_as_before`).
- e1d32aa6 (2026-12-05 12:38) drew render 2's tool times and b7a02fd6 (13:27) wrote the first ``render`` key: a
  manifest without one is of render 1 or render 2. Both manifests hold the same keys and ``asz`` 0.1.0 (no commit),
  so such a copy is drawn again as render 1 and as render 2.

:func:`check_drawn` checks a copy against each drawing its manifest admits; one giving the copy's bytes checks it.
When none does and the manifest admits more than one asz's drawing (a copy without a ``render`` key: renders 1 and 2
were drawn by rules that changed many times before, which this asz cannot draw again), the copy is said
:data:`NOT_REPRODUCED`, never changed.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Iterator, Optional

import orjson

__all__ = ["RENDER", "HEAD_SAID_RENDER", "COST_SAID_RENDER", "INDEX_RUNTIME_RENDER", "SHORT_HEAD_RENDER", "OWN_TITLE_RENDER", "FIELDS_RENDER", "PAIRED_RENDER", "REPLAY_CALLS_RENDER", "LINKS_RENDER", "CUT_SAID_RENDER", "REPLAY_ORDER_RENDER", "CHANGES_RENDER", "COUNTED_IN_RENDER", "COUNTED_LATER_RENDER", "SEPARATORS_RENDER", "COMPACTION_RENDER", "CHILD_LABEL_RENDER", "CONTINUED_MARK_RENDER", "ORPHAN_RENDER", "SUBAGENT_RENDER", "REPLAYS_RENDER", "INDEX_WORDS_RENDER", "ESCAPED_MASKS_RENDER", "NOTICES_RENDER", "NOTICE_LABEL_RENDER", "TOOLS_RENDER", "PAIRS_RENDER", "GISTS_RENDER", "CONTINUED_RENDER", "ARCHIVE_RENDER", "SAID_CSS", "TOOLS_CSS", "PRINT_CSS", "NOT_REPRODUCED", "as_forms", "as_render", "check_drawn", "drawing", "drawings", "drawn", "drawn_style", "notices_read"]

#: The rendering this asz writes (the manifest's ``render``).
RENDER = 57
#: The rendering a copy is being drawn as (:func:`drawing`): this asz's, or an older copy's while it is made again.
_DRAWN: ContextVar[int] = ContextVar("asz_render_drawn", default=RENDER)


def drawn() -> int:
    """The render number a copy is being drawn as now (:data:`RENDER` unless :func:`drawing` says otherwise)."""
    return _DRAWN.get()


#: The render from which a runtime's notice the adapter's ``fixed_notice`` reads as an interrupt is labelled
#: ``Interrupted by the person``, not ``Runtime notice`` (:func:`~asz_core.reading.export_calls.record_said`).
NOTICE_LABEL_RENDER = 21
#: The render from which a person's line the adapter flags ``notice`` (Claude Code's interrupt notice, 65cc2646) is drawn
#: as one (:func:`notices_read`).
NOTICES_RENDER = 19


#: The render from which an export prints and links whole (trial 45b F2, F3, F5, F6): html's print rules
#: (:data:`PRINT_CSS`), an md talk list linking each talk by its heading as written, a compaction boundary said in
#: words in html, a folder's copies linking the sessions they continue or are continued in.
ARCHIVE_RENDER = 28
#: The render from which the text form's header is short: its credential forms said by their number and where they are
#: listed, its ``status_read`` in one clause (:func:`~asz_core.reading.prose_text.short_head`; trial 49a F4).
SHORT_HEAD_RENDER = 51
#: The render from which an ``--in-range-only`` header's title is the window's own first prompt, not an earlier day's
#: (:func:`~asz_core.reading.audit_window.window_title`; trial 49a F2). 47, as export_render_history says: 01b1b124 made
#: it 48 with RENDER, so a render 47 copy was drawn again by the earlier rule.
OWN_TITLE_RENDER = 47
#: The render from which a conflict line names the fields two records under one id differ in, where render 43 said
#: ``with a different payload`` (:mod:`~asz_core.view.conflict_fields`; trial 48c F4).
FIELDS_RENDER = 44
#: The render from which md, html and the text form say a sub-agent group's parent call was not found (render 25).
ORPHAN_RENDER = 25
#: The render from which a sub-agent's talk no call started is headed as the page heads it, and a line after its
#: first reply is not its prompt (render 27: :mod:`~asz_core.view.subagent_heads`).
SUBAGENT_RENDER = 27
#: The render from which the lines forms leave a replayed model call's copy out, and md and html say what a talk of
#: copies alone is (render 29: :mod:`~asz_core.reading.prose_replays`; trial 45d F3, F5).
REPLAYS_RENDER = 29
#: The render from which a folder export's index writes tokens and cost as ``asz ls`` and ``asz usage`` do (``not
#: recorded``, ``unpriced``, the ``+`` and ``*`` marks; render 29: trial 45d F4), where render 28 wrote 0 and $0.00.
INDEX_WORDS_RENDER = 29
#: The render from which a manifest lists a mask md wrote escaped (``\\[private key left out]``; render 24).
ESCAPED_MASKS_RENDER = 24
#: The render from which md and html draw a todo list, an edit and a file written as a person reads them (render 20).
TOOLS_RENDER = 20
#: The render from which md and html draw every text pair of an edit (Kiro's too) as a diff, not only ``old_string``
#: and ``new_string`` (render 22).
PAIRS_RENDER = 22
#: The render from which a folded call's one line (html's tool line, the brief form's, the audit forms' ``tool_call``)
#: says a todo list's counts and an edit's path and lines changed, not its JSON cut short (render 23).
GISTS_RENDER = 23
#: The render from which a conversation of a compaction summary and no talk is titled so, not ``(no prompt)`` (render 30).
COMPACTION_RENDER = 30
#: The render from which a child stream no call names is labelled by no reply (render 31).
CHILD_LABEL_RENDER = 31
#: The render from which a resumed copy holding no talk of its own marks its runtime's title (render 32).
CONTINUED_MARK_RENDER = 32
#: The render from which ``summary.changes`` and ``changes_lines_unknown`` count none of a continuing copy's repeated
#: change records (339e9bc7, drawn from render 32 on).
CHANGES_RENDER = 32
#: The render from which a header and an index say a copy whose calls are the records it repeats 0, counted in the
#: conversation it continues, and a total's same-calls words name the rule of usage_once.once (render 33).
COUNTED_IN_RENDER = 33
#: The render from which a talk of copies alone names the talks its calls are drawn in by their number's order
#: (``Talk 2, Talk 10``), not as text (render 34: fix47b).
REPLAY_ORDER_RENDER = 34
#: The render from which md and html draw a result whose call never landed that was made smaller to land or removed
#: with its size and sha256, and their head says a conversation landed without some of its text (render 35: trial 47c F1).
CUT_SAID_RENDER = 35
#: The render from which html draws a link the model wrote to anything but an absolute web or mail address as text, its
#: target shown (render 37: :mod:`~asz_core.reading.html_links`; trial 47b F4).
LINKS_RENDER = 37
#: The render from which a talk of copies alone lists the calls it copies in the order they are drawn, not as text
#: (render 38: fix47j).
REPLAY_CALLS_RENDER = 38
#: The render from which md, html and the text form say a result's text and the runtime's structured copy, both too
#: large to land, each with its own size and digest (render 39: trial 47d F7).
PAIRED_RENDER = 39
#: The render from which a conversation whose calls drawn here all go on in a later session, counted there, reads 0 and
#: $0.00, counted in that session (render 41: trial 48a F4), as a copy counted where it continues does from render 33.
COUNTED_LATER_RENDER = 41
#: The render from which the text form writes U+2028 and U+2029 in a text as escapes, not raw with ``| `` after each
#: (render 42: trial 48c F5).
SEPARATORS_RENDER = 42
#: The render from which the audit header names the runtime and counts the tool calls that failed, and a step with no
#: time reads ``**Assistant** · `ID``` (render 55: :mod:`~asz_core.reading.head_said`; trial 50c F2, F4, F6).
HEAD_SAID_RENDER = 55
#: The render from which the audit header's cost none of whose tokens had a price reads ``usd`` null (the text form
#: ``cost: not priced (no price for MODEL)``), where render 55 said ``usd 0.0`` (render 56: trial 50c F3).
COST_SAID_RENDER = 56
#: The render from which a folder export's index has a ``runtime`` column (render 57: trial 50c F2;
#: :func:`~asz_core.reading.head_said.index_head`).
INDEX_RUNTIME_RENDER = 57
#: The render from which a resumed copy's title names what it continues by its whole id (render 26).
CONTINUED_RENDER = 26


def notices_read() -> bool:
    """Whether the copy being drawn (:func:`drawn`) reads a record from the person flagged ``notice`` as the
    interrupt notice it is (render 19 on): an audit line of role ``user``, kind ``interrupt``
    (:class:`~asz_core.reading.prose_audit.Audit`), and the header's problem line of a round that read it by an
    earlier rule (:meth:`~asz_core.view.view_base.ViewBase.reread_lines`). An older copy is made again without
    either, as the asz that made it read them (:mod:`~asz_core.reading.export_render_history`, render 19)."""
    return drawn() >= NOTICES_RENDER


@contextmanager
def drawing(render: int, cents_before: bool = False) -> Iterator[None]:
    """Draw copies as render ``render`` did inside the block, where a later render's change cannot be removed from
    the bytes by :func:`as_render` (render 6's commands as typed; before render 19 a person's line read as a
    notice, :func:`notices_read`), with costs as before f7840f1b when
    ``cents_before`` (:func:`~asz_core.view.prices.cents_as_before`); ``asz verify --export`` makes an older copy
    again so."""
    from ..view.prices import HOUR_SPLIT_ALWAYS, HOUR_SPLIT_RENDER, cents_as_before
    from ..view.conflict_fields import PAYLOAD_SAID
    from ..view.summary import CHANGES_REPEATED
    from ..view.titles import CHILD_LABEL_FIRST, COMPACTION_UNSAID, CONTINUED_SHORT, CONTINUED_UNMARKED
    from ..view.usage_relayed import RELAYED_RENDER, RELAYED_TOOLS_RENDER, TOOLS_COUNTED_RENDER, TOOLS_UNCOUNTED, TOOLS_UNSAID, UNCOUNTED_BEFORE
    from ..view.usage_undescribed import NO_OBJECT_RENDER, OBJECTLESS_COUNTED
    from ..view.view_base import NOTICES_READ

    token = _DRAWN.set(min(int(render), RENDER))
    notices = NOTICES_READ.set(notices_read())
    # each reader's flag of an earlier rule, true while a render before the one that changed it is drawn
    before = ((CONTINUED_SHORT, CONTINUED_RENDER), (COMPACTION_UNSAID, COMPACTION_RENDER), (CHILD_LABEL_FIRST, CHILD_LABEL_RENDER),
              (CONTINUED_UNMARKED, CONTINUED_MARK_RENDER), (CHANGES_REPEATED, CHANGES_RENDER), (PAYLOAD_SAID, FIELDS_RENDER),
              (UNCOUNTED_BEFORE, RELAYED_RENDER), (OBJECTLESS_COUNTED, NO_OBJECT_RENDER), (HOUR_SPLIT_ALWAYS, HOUR_SPLIT_RENDER),
              (TOOLS_UNSAID, RELAYED_TOOLS_RENDER), (TOOLS_UNCOUNTED, TOOLS_COUNTED_RENDER))
    flags = [(flag, flag.set(drawn() < since)) for flag, since in before]
    try:
        with cents_as_before(cents_before):
            yield
    finally:
        for flag, was in reversed(flags):
            flag.reset(was)
        NOTICES_READ.reset(notices)
        _DRAWN.reset(token)


#: What ``asz verify --export`` says of a copy no drawing its manifest admits gives (:func:`check_drawn`).
NOT_REPRODUCED = "made by an asz whose drawing cannot be reproduced: not checkable"


def drawings(render: Optional[int]) -> list[tuple[int, bool]]:
    """The drawings a manifest's ``render`` (None: it has no such key) admits, each ``(render, cents_before)`` for
    :func:`drawing`, the one to try first first: none, render 1 then render 2 (b7a02fd6 numbered render 2 after
    e1d32aa6 drew it); 1 and 2 themselves; 3 with the costs after f7840f1b, then before; each later render alone; the
    costs before f7840f1b for every render that drew them (1, 2 and an early 3)."""
    if render is None:
        return [(1, True), (2, True)]
    render = int(render)
    return [(render, True)] if render < 3 else [(3, False), (3, True)] if render == 3 else [(render, False)]


def check_drawn(check: Callable[[int, bool], tuple[list[str], list[str]]], render: Optional[int],
                evidence: Callable[[str], bool]) -> tuple[list[str], list[str]]:
    """``(said, problems)`` of a copy whose manifest's ``render`` key is ``render`` (None: none), checked by ``check(render,
    cents_before)`` (:func:`~asz_core.reading.export_manifest.check_against_root` drawing so) at each of
    :func:`drawings`: the first that finds no problem, with an ``ok`` line saying which drawing gave the copy when the
    manifest admits several; else, where the manifest is unnumbered and no problem is of the evidence
    (``evidence(problem)``: a landed file, the head round), the first attempt's ``said`` and :data:`NOT_REPRODUCED`
    (never a changed text: this asz cannot draw every rule those asz trees had); else the first attempt's."""
    ways = drawings(render)
    first = None
    for r, before in ways:
        said, problems = check(r, before)
        if not problems:
            if len(ways) > 1:
                said.append(f"drawn as render {r} drew it" + (" with the cost lines before f7840f1b (2026-12-05 22:06)"
                                                              if before else " with the cost lines since f7840f1b")
                            + (" (its manifest has no render key: renders 1 and 2 wrote none)" if render is None else
                               " (its manifest cannot say which: that change took no render number)"))
            return said, problems
        first = first or (said, problems)
    said, problems = first
    if render is not None or any(evidence(p) for p in problems):
        return said, problems
    return said + [f"{NOT_REPRODUCED}: its manifest has no render key, and neither render 1 nor render 2 drawn again "
                   "from the root gives its bytes: an asz before 2026-12-05 13:27 (b7a02fd6) drew copies by rules revised "
                   "many times, which this asz cannot draw again; its evidence is the root's (above)"], []


#: Render 8's style rule for a person's words drawn as written (``<div class="said">``), which an html copy of render 7
#: or before does not hold (trial 39c F1).
SAID_CSS = ".said{white-space:pre-wrap;overflow-wrap:anywhere}"
#: Render 20's style rules for a todo list, a diff and a file written (:data:`TOOLS_RENDER`), which an html copy of
#: render 19 or before does not hold: one line, ended by its newline, so it is taken off whole.
TOOLS_CSS = (".todos{list-style:none;padding-left:.4em}.todo .mark{font-family:ui-monospace,monospace}"
             ".todo.completed .what{color:#666;text-decoration:line-through}.todo.in_progress .what{font-weight:600}"
             ".diff .add{background:#e6ffec;color:#1a7f37}.diff .del{background:#ffebe9;color:#cf222e}.diff .hunk{color:#8250df}"
             "@media (prefers-color-scheme:dark){.diff .add{background:#12361f;color:#7ee787}.diff .del{background:#3d1418;"
             "color:#ffa198}.diff .hunk{color:#d2a8ff}}\n")


#: Render 28's print rules (:data:`ARCHIVE_RENDER`; trial 45b F2: a printed export showed no tool input or result, every
#: step a closed ``<details>``, every ``<pre>`` cut at 30em): in print, each ``<details>``' content is drawn open (its
#: ``::details-content``, no script), a ``<pre>`` and a table whole, long lines wrapped. One line, taken off whole.
PRINT_CSS = ("@media print{details::details-content{content-visibility:visible;display:contents}"
             "details>summary{white-space:normal;overflow-wrap:anywhere}pre{max-height:none;overflow:visible;white-space:pre-wrap;"
             "overflow-wrap:anywhere}table{display:table;overflow:visible}}\n")


def drawn_style(css: str) -> str:
    """An html page's style ``css`` (:data:`~asz_core.reading.export.CSS`) as the render being drawn wrote it
    (:func:`drawn`): without :data:`SAID_CSS` before render 8, without :data:`TOOLS_CSS` before render 20, without
    :data:`PRINT_CSS` before render 28."""
    css = css if drawn() >= ARCHIVE_RENDER else css.replace(PRINT_CSS, "", 1)
    css = css if drawn() >= TOOLS_RENDER else css.replace(TOOLS_CSS, "", 1)
    return css if drawn() >= 8 else css.replace(SAID_CSS, "", 1)


_TIME = rb"[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}(?:[+-][0-9]{2}:[0-9]{2})?"
#: Render 2's md tool heading: ``**Tool NAME**[ (failed)] · TIME · `ID```.
_MD_TOOL_TIME = re.compile(rb"^(\*\*Tool [^\n]*?\*\*(?: \(failed\))?) \xc2\xb7 " + _TIME + rb"( \xc2\xb7 `[^`\n]+`)$", re.M)
#: Render 2's html tool heading's time, just before its id in the summary line.
_HTML_TOOL_TIME = re.compile(rb' <span class="when">[^<\n]*</span>(?= <span class="id">[^<\n]*</span></summary>)')
#: Render 2's head lines of the links to other sessions (:func:`~asz_core.reading.listing.link_lines`).
_MD_LINKS = re.compile(rb"^- (?:continues|continued in) [^\n]*\n", re.M)
_HTML_LINKS = re.compile(rb'<p class="meta">(?:continues|continued in) [^<\n]*</p>\n?')
#: Render 4's text form: the header's line that says texts are quoted, and each text line's quote.
_TEXT_QUOTED_SAID = re.compile(rb'^texts: quoted, [^\n]*\n', re.M)
_TEXT_QUOTE = re.compile(rb"^\| ?", re.M)
#: Render 5's text form: the quote after a U+2028 or U+2029 (UTF-8 ``e2 80 a8``/``e2 80 a9``) in a text.
_TEXT_SEPARATOR_QUOTE = re.compile(rb"(?<=\xe2\x80[\xa8\xa9])\| ")
#: Render 6's ``window_local`` line of the text form's header (asz's own line: a text's lines begin with ``| ``).
_TEXT_WINDOW_LOCAL = re.compile(rb"^window_local: [^\n]*\n", re.M)
#: Render 4's JSON escape of a character a JSON encoder leaves as it is (DEL, C1, the bidi overrides U+202A-U+202E
#: and U+2066-U+2069: asz_core.reading.termtext.json_visible), not itself escaped (after an even run of backslashes).
_JSON_VISIBLE = re.compile(rb"(?<!\\)((?:\\\\)*)\\u(007f|00[89][0-9a-f]|202[a-e]|206[6-9])")
#: Render 7's JSON escape of U+2028, U+2029 and the zero-width characters (termtext.json_visible), not itself escaped.
_JSON_LINE_VISIBLE = re.compile(rb"(?<!\\)((?:\\\\)*)\\u(2028|2029|00ad|061c|180e|200b|200e|200f|206[0-4]|feff)")
#: Render 4's md warning line (asz_core.reading.md_active.warned), the head's first line when there.
_MD_WARNING = re.compile(rb"\A([^\n]*\n\n)- \*\*warning: active content:\*\* [^\n]*\n")
#: Render 3's decoded image in a media line (md and html: the line is drawn as text, no character of it escaped).
_MEDIA_DECODED = re.compile(rb"(\[(?:image|media): [^\]\n]*?, sha256 [0-9a-f]{64}); decoded: [0-9,]+ bytes, sha256 [0-9a-f]{64}\]")
#: Render 3's decoded image in a json media entry (keys, never a string's text: a quote in a text is escaped).
_JSON_DECODED = re.compile(rb',"decoded_bytes":[0-9]+,"decoded_sha256":"[0-9a-f]{64}"')


def as_render(again: bytes, render: int, fmt: str | None) -> bytes:
    """``again`` (a copy made again by this asz, in ``fmt``: ``md``, ``html``, ``json``, …) as rendering ``render``
    drew it: unchanged for this rendering, another format or an unknown number; for render 6 and before, json's and
    prose's escapes of U+2028, U+2029 and the zero-width characters (render 7) undone; for render 5 and before, the
    text form's ``window_local`` header line (render 6) removed; for render 4 and before, the text
    form's quotes after a line separator (render 5) removed; for render 3 and before, the text form's every quote and
    the md warning line (render 4) removed; for render 2 and before, what render 3 added removed, and for render 1
    what render 2 added too."""
    if render >= 7:  # renders 8 to 10 are drawn as the copy's render drew them (drawing)
        return again
    if fmt in ("json", "prose"):  # render 7's escapes undone
        again = _JSON_LINE_VISIBLE.sub(lambda m: m.group(1) + chr(int(m.group(2), 16)).encode(), again)
    if fmt == "text":
        if render >= 6:  # render 7 changed json and prose only
            return again
        again = _TEXT_WINDOW_LOCAL.sub(b"", again)
        if render >= 5:
            return again
        again = _TEXT_SEPARATOR_QUOTE.sub(b"", again)
        return again if render >= 4 else _TEXT_QUOTE.sub(b"", _TEXT_QUOTED_SAID.sub(b"", again))
    if render >= 4:  # render 5 and 6 changed the text form only, render 7 json and prose (above)
        return again
    if fmt == "md":
        again = _MD_WARNING.sub(rb"\1", again)
    if fmt in ("json", "prose"):
        again = _JSON_VISIBLE.sub(lambda m: m.group(1) + chr(int(m.group(2), 16)).encode(), again)
    if render >= 3:
        return again
    if fmt == "json":
        return _JSON_DECODED.sub(b"", again)
    if fmt not in ("md", "html"):
        return again
    again = _MEDIA_DECODED.sub(rb"\1]", again)
    if render >= 2:
        return again
    if fmt == "md":
        head, cut, rest = again.partition(b"\n## ")  # the links are head lines, before the first talk
        return _MD_LINKS.sub(b"", head) + cut + _MD_TOOL_TIME.sub(rb"\1\2", rest)
    return _HTML_TOOL_TIME.sub(b"", _HTML_LINKS.sub(b"", again))


#: The credential forms each earlier asz declared in an audit copy's header (``credentials.forms``:
#: :func:`~asz_core.reading.prose_audit.coverage`; ``--audit``'s JSON line and the text form's ``credentials:`` line),
#: oldest first: e1eea967 (2026-12-05 03:12), ccbb6c2e (03:53) and ffe662f8 (2026-12-06 00:32, session 42) to
#: fbe44e18, forms 1 and 2 (3daf4301 to session 44's fix44g) and forms 3 (fix44g to fix44b). Forms take no render
#: number, so a header listing one of
#: them is drawn as that asz declared it (:func:`as_forms`; the forms themselves are checked by the masks:
#: docs/verify.md).
_FORMS_BEFORE = tuple(tuple(s.split()) for s in (
    "aws-access-key-id aws-secret-access-key github-token gitlab-token anthropic-api-key openai-api-key slack-token "
    "slack-webhook-url google-api-key stripe-live-key huggingface-token npm-token private-key jwt url-password password",
    "aws-access-key-id aws-secret-access-key github-token gitlab-token anthropic-api-key openai-api-key slack-token "
    "slack-webhook-url google-api-key google-oauth-client-secret stripe-live-key huggingface-token npm-token private-key "
    "jwt bearer-token url-password password",
    "aws-access-key-id aws-secret-access-key github-token gitlab-token anthropic-api-key openai-api-key slack-token "
    "slack-webhook-url google-api-key google-oauth-client-secret stripe-live-key huggingface-token npm-token private-key "
    "jwt bearer-token url-password sendgrid-api-key azure-storage-account-key basic-auth mysql-password password token",
    "aws-access-key-id aws-secret-access-key github-token gitlab-token anthropic-api-key openai-api-key slack-token "
    "slack-webhook-url google-api-key google-oauth-client-secret stripe-live-key huggingface-token npm-token private-key "
    "jwt bearer-token url-password sendgrid-api-key azure-storage-account-key azure-shared-access-key azure-sas-signature "
    "basic-auth mysql-password curl-password password token",
    "aws-access-key-id aws-secret-access-key github-token gitlab-token anthropic-api-key openai-api-key slack-token "
    "slack-webhook-url google-api-key google-oauth-client-secret stripe-live-key huggingface-token npm-token private-key "
    "jwt bearer-token url-password sendgrid-api-key azure-storage-account-key azure-shared-access-key azure-sas-signature "
    "basic-auth mysql-password curl-password password token api-key-header authorization-token cookie env-secret "
    "docker-password sshpass-password redis-password netrc-password encoded-password docker-auth kubeconfig-client-key "
    "base64-token continued-token"))


def _forms_said(forms: tuple[str, ...]) -> tuple[bytes, bytes]:
    """How an audit header writes the ``forms`` list: the text form's ``credentials:`` line, then prose's JSON."""
    return (b"forms " + ", ".join(forms).encode() + b", not_covered ",
            b'"forms":' + orjson.dumps(list(forms)) + b',"not_covered":')


def as_forms(copy: bytes, again: bytes) -> bytes:
    """``again`` (a text or ``--audit`` copy made again) with its header's credential forms drawn as the ``copy``'s
    when that header, at the same offset, lists the forms an earlier asz declared (:data:`_FORMS_BEFORE`: sessions 42,
    43 and 44 added forms, and each such copy failed at that line though nothing of the evidence changed); else
    ``again`` as it is."""
    from ..view.secret_forms import KINDS

    for now, *before in zip(_forms_said(tuple(name for name, _, _ in KINDS)), *map(_forms_said, _FORMS_BEFORE)):
        at = again.find(now)
        if at < 0:
            continue
        said = next((b for b in before if copy.startswith(b, at)), None)
        return again if said is None else again[:at] + said + again[at + len(now):]
    return _forms_numbered(copy, again)


#: The short header's forms (render 51: :func:`~asz_core.reading.prose_text.short_head`), ``forms N (COUNT, docs…``.
_FORMS_NUMBERED = re.compile(rb'forms (\d+) (\(\d+, docs/reading\.md "Credentials")')


def _forms_numbered(copy: bytes, again: bytes) -> bytes:
    """``again`` with each short header's forms number drawn as the ``copy``'s where the copy, at the same place, names
    an earlier number of :data:`~asz_core.reading.export_forms.FORMS_SAID` with the same count: a text copy of render
    51 says the forms that masked it by number, and the next forms (review49: forms 11) changed only that number, so
    every such copy failed at its header (the masks themselves are checked as a copy of other forms')."""
    from .export_forms import FORMS, FORMS_SAID

    out, at, moved = [], 0, 0
    for m in _FORMS_NUMBERED.finditer(again):
        was = _FORMS_NUMBERED.match(copy, m.start() + moved)
        if was is None or was.group(2) != m.group(2) or int(was.group(1)) not in FORMS_SAID or int(was.group(1)) >= FORMS:
            continue
        out += [again[at:m.start()], was.group(0)]
        at, moved = m.end(), moved + len(was.group(0)) - len(m.group(0))
    return b"".join(out) + again[at:] if out else again
