"""What each change to the exports' rendering drew differently, by its render number (:mod:`~asz_core.reading.export_render`).

A copy's manifest says the render it was made with (its ``render`` key; a manifest without one is render 1), and
``asz verify --export FILE --root ROOT`` makes the copy again as that render drew it
(:func:`~asz_core.reading.export_render.drawing`, :func:`~asz_core.reading.export_render.as_render`) before it compares
the two byte for byte. Each entry says what the render changed and how a copy of an earlier one is made again; a
name with no module (:func:`drawing`, :data:`FIELDS_RENDER`) is :mod:`~asz_core.reading.export_render`'s.

- render 1: every copy made before session 30 (2026-12-05).
- render 2: a tool call's heading carries the time of its record (md ``**Tool Bash** · 2026-10-25 02:20:00 ·
  `tool/…```, html ``<span class="when">…</span>`` before its id; trial 30a F3), and the head says what the
  conversation continues or is continued in (md ``- continues …``, html ``<p class="meta">continues …</p>``; trial
  30a F7).
- render 3: an image (a media part) whose landed data is base64 also gives the size and SHA-256 of the bytes it
  decodes to, the image file itself (md and html ``[image: …, sha256 …; decoded: N bytes, sha256 …]``, json's media
  entry ``decoded_bytes`` and ``decoded_sha256``, after ``digest``; trial 31b F8, fix32d).
- render 4: the text form (``--format text``) quotes its texts: each line of a text begins with ``| `` (``|`` on an
  empty one) and the header's last line says so (:data:`~asz_core.reading.prose_text.QUOTED_SAID`); asz's own
  lines are each one line (trial 34c F1); an md copy whose texts hold raw HTML, script links or remote images says
  so in a line under its title (:data:`~asz_core.reading.md_active.WARNING_HEAD`, trial 34c F10); json and prose
  write DEL, C1 and the bidi overrides as JSON escapes (``\\u202e``, the same value; trial 34c F9).
- render 5: in the text form, ``| `` also follows each U+2028 and U+2029 in a text (a line break to an editor, a
  Markdown viewer and ``str.splitlines()``), so no text reads there as a line of asz's own (review34, after trial
  34c F1); the other forms are drawn as render 4 draws them.
- render 6: the text form's header gives ``window_local`` after ``window``: the ``--tz`` zone and the window's ends
  in it (:func:`~asz_core.reading.prose_text.window_local`; trial 35b F6), and its ``command`` and
  ``command_output`` lines give a runtime's command as typed and its output as md reads them (``! uv run ty check``,
  not the command inside the runtime's own markup tags: :func:`~asz_core.reading.prose_text.plain_blocks`; trial 35b F8);
  the other forms are drawn as render 5 draws them. What render 6 drew of a command cannot be taken back off the
  bytes (the markup went), so the copy of an older render is made again drawing its commands as that render did
  (:func:`drawing`, :func:`drawn`).
- render 7: json and prose also write U+2028, U+2029 and the zero-width characters
  (:data:`~asz_core.termsafe.INVISIBLE`: U+200B, U+200E, U+FEFF, …) as JSON escapes (``\\u2028``, the same value), so
  no line of the JSON Lines breaks in two to ``str.splitlines()`` or an editor (review34, fix35a); the other forms
  are drawn as render 6 draws them.
- render 8: a person's words and what the runtime put in or beside them (a prompt, its IDE selection and
  opened-file texts, injected context, the prose around a command's blocks) are drawn in html as written, escaped
  with their line breaks kept (``<div class="said">``), no longer as Markdown, which took a backslash from
  ``\\\\wsl.localhost`` and every one before ``_ * [ #`` (trial 36c F1); the md head lines and talk headings, and
  an md index's title and project cells, escape each backslash outside code that a Markdown viewer reads as an
  escape (and the ``&`` of an entity), so it shows a Windows path as written (:func:`~asz_core.reading.termtext.md_literal`). What Markdown made of a text cannot be taken back
  off the bytes, so a copy of an older render is made again drawing as that render did (:func:`drawing`); the other
  forms are drawn as render 7 draws them.
- render 9: every line asz frames in md, html and text (the heads: title, project, branch, models, cost lines, who
  sent it; index cells; talk headings; the text form's ``key: value`` and ``[TS] KIND`` lines) goes through the one
  rule for a value inside one line (:func:`~asz_core.reading.termtext.md_line`, :func:`~asz_core.termsafe.line_value`):
  a tab as ``\\t``, the zero-width characters as ``\\u200b`` and, in html, a CR as ``\\x0d`` too (fix36c; a planted
  title, cwd, branch or model kept them raw); and an md copy writes the raw HTML, script and data links and images of
  its texts escaped, never run (``\\<script``, ``\\[x](javascript:…)``: :mod:`~asz_core.reading.md_active`; trial
  34c F10). What render 9 drew cannot always be taken back off the bytes (a transcript's own ``\\t`` reads as a tab's
  escape), so a copy of render 8 or before is made again drawing as that render did (:func:`drawing`).
- render 10: in a block of an md copy written escaped (render 9), the code spans are left as they are, since a code
  span shows a backslash (render 9 wrote ```a\\<b```, which a viewer shows as ``a\\<b``), and the warning line counts
  only the raw HTML that can act (a script, an image, a link, an element with an attribute:
  :func:`~asz_core.reading.md_active._acts`), not a placeholder or a runtime's markup tag (``<number>``,
  ``<task-id>``), which is escaped all the same so a viewer shows it (fix37b). A copy of render 9 is made again
  drawing as render 9 did (:func:`drawing`).
- render 11: the audit forms (``--audit``, ``--format text``) say what failed (trial 37b F5: a failed trace's text
  form said ``problems: none`` and no error text): the header's ``errors`` after ``problems`` (``asz ls``'s words, or
  none), a failed tool call's ``error`` (its result's text, at most
  :data:`~asz_core.reading.audit_errors.ERROR_BYTES` bytes, and the bytes left out) and a line for each error step,
  kind ``api_error`` or ``run_failed``. A copy of render 10 or before is made again drawing as that render did
  (:func:`drawing`); the other forms are drawn as render 10 draws them.
- render 12: no copy's bytes changed; its manifest lists only the masks the masker put there (review37: a password's
  ``***`` and every Markdown ``***`` of the texts were listed alike, 12 places where 3 were masks, each of the first
  form seen). A place where a shown text also stands as typed, or stands for more than one form, is the occurrence
  whose text around it is most like the copy's (:func:`~asz_core.reading.export_manifest.mask_places`); a manifest of
  render 11 or before is checked by the rule it was written with.
- render 13: a conversation's md in a folder export (``--out DIR/``, ``--format md``, its manifest's ``made.index``
  ``index.md``) links back to the folder's ``index.md`` on the line under its title and lists its talks after its
  head, each linking its heading (:func:`~asz_core.reading.export_nav.talk_list`; trial 37a F6: the html had both, the md
  neither). A copy of render 12 or before is made again drawing as that render did (:func:`drawing`); a single
  file's md (no index) is drawn as render 12 draws it.
- render 14: in the text form a person's turn whose text retention took reads ``[TS] prompt, removed by retention``
  (``subagent_prompt, …`` in a sub-agent's stream), no longer ``[TS] removed`` (trial 39a F4:
  :func:`~asz_core.reading.prose_text._label`), and with ``--in-range-only`` the audit forms (``--audit``, text)
  write a result inside the window of a call made before it as a line of kind ``tool_result`` (its ``call_ts``; the
  text form's ``answers:`` line) and ``status_read`` says so (trial 39a F2: such a failure was in no day's audit:
  :func:`~asz_core.reading.prose_audit._answered_late`); a copy of render 13 or before is made again drawing as
  that render did (:func:`drawing`); md, html and json are drawn as render 13 draws them.
- render 15: a tool call the person refused (its result the runtime's fixed answer:
  :func:`~asz_core.view.tool_tallies.refused`) is said ``refused``, no longer ``failed``, in md (``**Tool Bash**
  (refused) · …``), html (``<span class="refused">refused</span>``) and the brief form (``· refused``), as the text
  form, ``asz conversation`` and ``asz usage tools`` say it (trial 38a F4; :func:`~asz_core.reading.export_refusals.tool_mark`).
  A copy of render 14 or before is made again drawing as that render did (:func:`drawing`); the other forms are drawn
  as render 14 draws them.
- render 16: md and html read like claude-code-log's (trial 41c F3, F4, F6, F7, F8; :mod:`~asz_core.reading.export_calls`):
  each model call's tokens and cost at its first step (``Model call MODEL · tokens in 5 · out 159 · cache read 500 ·
  cache write 100 · cost $0.01``), the head's ``N thinking block(s) left out (--thinking shows them)`` without
  ``--thinking``, in md a code fence a person's or the model's text leaves open closed after it
  (:func:`~asz_core.reading.export_blocks.sealed`) and a runtime's notice whose text is its record's JSON as one line
  (:func:`~asz_core.reading.export_calls.record_folded`), in html a sub-agent's call and its talk linked both ways. A
  copy of render 15 or before is made again drawing as that render did (:func:`drawing`).
- render 17: md's folded line of a runtime's record that says it ran commands (Claude Code's stop hook summary) gives
  each command in a code span and its run time, ``*Ran `"${CLAUDE_PLUGIN_ROOT}/scripts/clmail.cmd" actor idle` (102
  ms). The runtime's record: 744 bytes of JSON, folded: in FILE:ROW; whole in the json export*``, where render 16 gave
  the record's keys (close41; :func:`~asz_core.reading.export_calls.ran_said`). A copy of render 16 or before is made
  again drawing as that render did (:func:`drawing`).
- render 18: md and html draw the steps under a ``loose`` node that is not drawn itself, a model call in no talk
  (an adapter's transcript with no prompt, or one whose only prompt did not parse: its reply and tool calls), with
  that call's tokens line, in the talk the node is placed in or under ``Outside any talk``, where render 17 drew none
  of them (trial 43b F1; :func:`~asz_core.reading.export_steps._place_loose`). A copy of render 17 or before is made
  again drawing as that render did (:func:`drawing`).
- render 19: md's and html's line of a model call a sub-agent's or side question's file replays (the document's
  ``replayed_in``: :func:`~asz_core.flow.asm_state.replays`) names the streams of the copy, ``Model call … · replayed
  in a320f12 (drawn once, here)`` (trial 43c F2: the copy was drawn again as a message). A copy of render 18 or before
  is made again drawing as that render did (:func:`drawing`). Render 19 is also the first whose asz reads Claude Code's
  interrupt notice as the runtime's notice (65cc2646, trial 43c F1: landed flagged ``notice`` by claude-code-local
  0.9.0, an earlier file's re-read so by ``asz parse``): a text or ``--audit`` copy of render 18 or before is made
  again as its asz read the landed records (:func:`notices_read`): a record flagged ``notice`` a person's line gives
  is the runtime's notice line (role ``system``, kind ``notice``) as that asz drew it, not role ``user``, kind
  ``interrupt``, and its header's ``problems`` do not say that the round read such a notice by an earlier rule (no
  earlier asz's rule read one so; fix43i: such copies made at fbe44e18 failed at those lines).
- render 20: md and html draw a tool call's input that is a todo list as a checklist, an edit as a unified diff of
  old to new and a file written as its content in a code block with the language of its extension
  (:mod:`~asz_core.view.tool_drawn`, :data:`TOOLS_RENDER`; trial 43c F4, F7: Claude Code's ``TodoWrite`` was drawn
  as JSON, ``Edit``, ``MultiEdit`` and ``Write`` as their raw fields), where render 19 drew their fields; html's style
  gains :data:`TOOLS_CSS`. A copy of render 19 or before is made again drawing as that render did (:func:`drawing`,
  :func:`drawn_style`).
- render 21: md and html label a runtime's notice that the adapter's ``fixed_notice`` reads as an interrupt (Claude
  Code's ``[Request interrupted by user]``, ``… for tool use]``) ``Interrupted by the person``, no longer ``Runtime
  notice`` (:func:`~asz_core.view.step_words.notice_label`; the text form already said ``interrupt``), and a model
  call whose model has no price says ``cost unpriced (no price for MODEL)`` on its line, where render 20 said no cost
  (:func:`~asz_core.reading.export_calls.call_cost`; close43 "Not done": reading). A copy of render 20 or before is
  made again drawing as that render did (:func:`drawing`).
- render 22: md and html draw Kiro's edits as render 20 draws Claude Code's ``Edit``, a unified diff of old to new
  (Kiro CLI's ``old_str``/``new_str``, Kiro IDE's ``originalContent``/``modifiedContent``: the text pairs of
  :data:`~asz_core.view.placing.PAIRS`; :data:`PAIRS_RENDER`), where render 21 drew their two texts as fields. A copy
  of render 21 or before is made again drawing as that render did (:func:`drawing`).
- render 23: a folded call's one line (html's tool line, the brief md's call line, the audit forms' ``tool_call``
  line) says a todo list's counts (``4 todos: 1 completed, 1 in progress, 2 pending``; the audit forms said its JSON
  cut at 120 characters, html and brief said it from render 20) and an edit's path and the lines its diff takes away
  and adds (``/w/a.py (-3 +5)``, where it said the path), read as render 22 draws them
  (:func:`~asz_core.view.tool_drawn.drawn_gist`, :data:`GISTS_RENDER`). A copy of render 22 or before is made again
  drawing as that render did (:func:`drawing`).
- render 24: a copy's bytes are drawn as render 23 drew them; its manifest lists too each mask md wrote escaped in a
  block holding active content (a PEM key's ``-----BEGIN … PRIVATE KEY-----\\[private key left out]``,
  :mod:`~asz_core.reading.md_active`), which render 23 and before left out of ``masks`` (fix44k, trial 44c: the manifest counted
  such a key 3 times where it was masked 5; :func:`~asz_core.reading.export_manifest.mask_places`).
- render 25: md and html say ``· parent call not found`` after ``· a sub-agent's lines, written in its parent's
  transcript`` on the time line of a talk the document marks ``orphan`` (a sub-agent's lines in its parent's file
  that no call and no prompt of their own opened, drawn as a group of their own since index schema 7: field report
  34; :func:`~asz_core.reading.export.sidechain_talk_said`), and the text form says ``, a sub-agent's line`` after
  the kind of a line whose record says ``sidechain`` (``, a sub-agent's line, parent call not found`` in such a
  group), where render 24 said neither (:data:`ORPHAN_RENDER`). A copy of render 24 or before is made again drawing
  as that render did (:func:`drawing`); one made before assembly drew such groups is made again as of its head
  round, whose talks hold such a line among its parent's steps, as render 19 marks it.
- render 26: the title of a resumed copy no talk of its own names gives the whole id of the conversation it
  continues, ``(continues 326189cf-5676-4237-8cde-1ce80aae4a9f) TITLE``, where render 25 gave its first 8 characters
  (:func:`~asz_core.view.titles.continued_title`; close44 "Not done": reading). A copy of render 25 or before is made
  again titled as that render titled it (:func:`drawing`, :data:`~asz_core.view.titles.CONTINUED_SHORT`).
- render 27: a sub-agent's talk no call started (an orphan group, or a child stream no call names) is headed as the
  page heads it, ``Subagent: <the line that opens it>``, else ``Subagent: parent call not found`` (md, html, the
  Talks list; render 26 headed it by its id, or by its label), and a person's or injected line after such a talk's
  first reply is drawn as what it is, not ``Asked (the prompt this talk was given)``; the text form says it ``text``,
  not ``subagent_prompt`` (:mod:`~asz_core.view.subagent_heads`, :data:`SUBAGENT_RENDER`; trial 45b F4). A copy of
  render 26 or before is made again drawing as that render did (:func:`drawing`).
- render 28: exports an archivist can print and follow (trial 45b F2, F3, F5, F6; :data:`ARCHIVE_RENDER`): html gains
  :data:`PRINT_CSS` (printed, every ``<details>``' content drawn open and every ``<pre>`` whole); an md folder copy's
  talk list links each talk by the anchor of its heading as the copy writes it, escaped, its line escaped apart from
  its link (:func:`~asz_core.reading.export_nav.talk_list`; render 27 escaped the link's own ``[`` where a title held
  ``<script>`` and made the anchor from the unescaped title); html draws a compaction boundary whose label says it in
  words as md does, its head alone (render 27 drew the record's JSON under it); a folder export's copies link the
  sessions their head says they continue or are continued in when those are of the folder
  (:mod:`~asz_core.reading.export_links`, the manifest's ``made.linked``). A copy of render 27 or before is made again
  drawing as that render did (:func:`drawing`).
- render 29: the text form, ``--audit`` and prose draw a model call a sub-agent's or side question's file replays
  once, as md and html do (the document's ``replayed``: :mod:`~asz_core.reading.prose_replays`): no line of the
  copy, and the header's ``lines`` and ``left_out`` count it once (render 28 drew it again as a line of the copy's
  stream, ``tool_call, stream replay45``: trial 45d F3); md and html draw a sub-agent's talk holding only such
  copies as what it is, a copy of the call drawn in its own talk, not an empty talk (F5; :data:`REPLAYS_RENDER`).
  A folder export's index writes each row's and each total's tokens and cost as ``asz ls`` and ``asz usage`` do:
  ``not recorded`` (never ``0 tokens, $0.00``), ``unpriced``, the ``+`` and ``*`` marks
  (:func:`~asz_core.reading.listing.figure_cells`, :data:`INDEX_WORDS_RENDER`; F4).
  A copy of render 28 or before is made again drawing as that render did (:func:`drawing`).
- render 30: a verified conversation with no talk whose records hold a compaction summary (field report 35's shape:
  Claude Code's ``isCompactSummary`` line and the replies after it) is titled
  :data:`~asz_core.view.summary.COMPACTION_ONLY`, ``(compaction summary, no prompt)``, where render 29 said
  ``(no prompt)`` (:data:`COMPACTION_RENDER`; fix46c). A copy of render 29 or before is made again titled as that
  render titled it (:func:`drawing`, :data:`~asz_core.view.titles.COMPACTION_UNSAID`).
- render 31: a child stream no call started and no name labels (a ``subagents/agent-<id>.jsonl`` no ``Task``
  names) is labelled by the record that opens its first talk, a person's or the runtime's uninjected line before any
  reply, else not at all (the document's ``streams[].label`` and ``named_by``: the json form; fix46c), where render
  30 took the record the talk starts at, a reply too (:data:`CHILD_LABEL_RENDER`). A copy of render 30 or before is
  made again labelling as that render did (:func:`drawing`, :data:`~asz_core.view.titles.CHILD_LABEL_FIRST`).
- render 32: a conversation that continues another and holds no talk of its own is titled ``(continues ID) TITLE``
  also when its runtime titles it (a copy of a Kiro session: its session document's title), in every dialect, where
  render 31 gave the runtime's title alone (:data:`CONTINUED_MARK_RENDER`; trial 46b F6). A copy of render 31 or
  before is made again titled as that render titled it (:func:`drawing`,
  :data:`~asz_core.view.titles.CONTINUED_UNMARKED`). Its copies, and render 33's, count in ``summary.changes`` and
  ``changes_lines_unknown`` none of the change records a continuing copy repeats (339e9bc7, which took no number:
  render 31 counted them); a copy of render 31 or before is made again counting them (:data:`CHANGES_RENDER`,
  :data:`~asz_core.view.summary.CHANGES_REPEATED`; review46: a json copy of 8463c716 made at c963d268, its summary
  saying changes 27, was made again saying 0 and no longer verified). A render 31 copy made on a tree between
  339e9bc7 and ee3045db counted as render 32 does and does not check.
- render 33: a conversation that continues another recording token counts and has no model call of its own (a copy
  under a new id: every call of it a record it repeats, drawn and counted there) reads ``tokens 0, counted in ID …``
  and ``cost $0.00, counted in ID`` in md and html headers, and 0 and $0.00 in a folder index's row, where render 32
  said ``tokens not recorded: …``, ``cost -`` and ``not recorded``, ``-`` (:mod:`~asz_core.view.counted_in`; trial
  46a F5); an md or html index's total says calls two conversations hold are counted once ``under the conversation
  whose copy counts the most output tokens, then the one that made them first`` (b4afd475's rule,
  :func:`~asz_core.view.usage_once.once`), where render 32 said ``under the one that made them first``
  (:data:`COUNTED_IN_RENDER`). A copy of render 32 or before is made again with the earlier words (:func:`drawn`).
- render 34: md and html name the talks a sub-agent's talk of copies alone is drawn in (render 29's ``drawn once, in
  Talk 2, Talk 10``) in the order of their numbers, where render 33 sorted them as text (``Talk 10, Talk 2``; fix47b,
  :data:`REPLAY_ORDER_RENDER`, :func:`~asz_core.reading.prose_replays.replay_talks`). A copy of render 33 or before is
  made again in that order (:func:`drawn`).
- render 35: md and html draw a result whose call never landed (the Unresolved section's ``The result as landed,
  which no step draws``) that was made smaller to land or removed by retention as a tool step's result is drawn,
  ``[too large to land: 3,000,000 bytes, sha256 548b…]``, where render 34 drew ``(no text)``, and their head says
  what ``asz conversation`` says of a conversation whose text is not all kept, ``landed without its text: 1 part too
  large to land (3,000,000 bytes as written)`` (trial 47c F1; :data:`CUT_SAID_RENDER`,
  :func:`~asz_core.reading.export.unresolved_said`, :func:`~asz_core.reading.export._figures`). A copy of render 34
  or before is made again drawing as that render did (:func:`drawn`).
- render 36: after retention the text form labels a person's turn in the main stream by what its skeleton can tell,
  ``prompt or command``, ``prompt_blocks``, ``notice``, ``subagent_prompt`` or ``command_output or text``, ``, removed
  by retention`` (:data:`~asz_core.reading.prose_text.REMOVED_KINDS_RENDER`), where render 35 said ``prompt, removed
  by retention`` of each (trial 47a F2: 97 where 51 prompts were typed); and the audit forms give a failed call's or
  an error step's error whose text retention took the size of that text, all of it left out (``"bytes":225,
  "left_out":225``, text form ``error: 225 bytes, removed by retention``), where render 35 gave the marker's size,
  ``33 bytes, whole`` (trial 47a F1; :data:`~asz_core.reading.audit_errors.GONE_ERRORS_RENDER`). A copy of render 35
  or before is made again drawing as that render did (:func:`drawn`).
- render 37: html draws a link the model wrote in its Markdown whose target is not an absolute ``http:``, ``https:``
  or ``mailto:`` address (``[README.md](README.md)``, ``[the config](pyproject.toml)``, ``#step-2``, ``index.html``)
  as its text, the target after it as code when the text is not the target (``the config (pyproject.toml)``), and an
  image from such a place as ``[image: ALT] (PATH)``, never as a link: in a shared copy such a target named nothing,
  or a file of the export itself (trial 47b F4: 42 such links in a folder of 178 copies; one named ``index.html``
  opened the folder's index; :data:`LINKS_RENDER`, :mod:`~asz_core.reading.html_links`). md keeps the model's
  Markdown as written. A copy of render 36 or before is made again with those links live (:func:`drawn`).
- render 38: md and html list the calls a sub-agent's talk of copies alone copies (render 29's ``holds only a copy
  of call/…, call/…``) in the order they are drawn, the talks' order then their place, where render 37 sorted them as
  text (``call/msg_t47_10, call/msg_t47_2``; fix47j, :data:`REPLAY_CALLS_RENDER`,
  :func:`~asz_core.view.replay_talks.replay_only`). A copy of render 37 or before is made again in that order.
- render 39: md and html draw a tool result whose text went to land after the runtime's structured copy (Claude
  Code's ``toolUseResult``; seed 000: data goes before text, so the part's ``bytes`` is its text's and its ``sha256``
  the copy's, the copy's size in the record's ``dropped``) with each size beside its own object's digest, ``[too large
  to land: text 3,228,902 bytes (its sha256 not recorded); the runtime's structured copy 3,273,970 bytes, sha256
  8f59…]``, where render 38 drew ``[too large to land: 3,228,902 bytes, sha256 8f59…]``, the text's size beside the
  copy's digest (trial 47d F7; :data:`PAIRED_RENDER`, :func:`~asz_core.reading.export_steps.part_marker`), and so
  does the text form's error of such a failed call. A copy of render 38 or before is made again drawing as that
  render did (:func:`drawn`). The json form's keys of such a result (``result_taken``, …) are a later key, not a render
  (:mod:`~asz_core.reading.export_later`).
- render 40: a refused call whose skeleton keeps the runtime's fixed answer before the person's reason, which retention
  took (``removed_bytes``, :meth:`asz_core.Adapter.fixed_prefix`; trial 47a F1's other half), reads ``refused`` (it
  read failed), md, html and the JSON document draw the lead and ``[removed by retention: N bytes]`` after it
  (:func:`~asz_core.view.rate_words.kept_text`), and the text form says ``reason: N bytes, removed by retention``
  under the call (the ``--audit`` line's ``reason``). Only a skeleton this asz writes holds such a part, so a copy of
  any render is made again with them (a copy made before ``asz prune`` is laid over the marker, as over any other).
- render 41: a conversation with no model call counted of its own whose calls drawn here all go on in a later session
  that holds their last line and records token counts (``counted_later``: a call streamed across ``--resume``, its
  final snapshot in the continuation) reads ``tokens 0, counted in ID (every model call drawn here goes on there …)``
  and ``cost $0.00, counted in ID`` in md and html headers, and 0 and $0.00 in a folder index's row, where render 40
  said ``tokens not recorded: …``, ``cost -`` and ``not recorded``, ``-`` (:mod:`~asz_core.view.counted_in`; trial 48a
  F4; :data:`COUNTED_LATER_RENDER`). A copy of render 40 or before is made again with the earlier words.
- render 42: the text form writes a U+2028 or U+2029 in a text as its escape (``\\u2028``), as its own lines, json and
  prose do, where renders 5 to 41 kept it raw and wrote ``| `` after it: a reader splitting the file on ``\\n``, as the
  form promises, saw the marker inside a quoted line, and one splitting at U+2028 too the line asz's own unquoted
  (trial 48c F5; :data:`SEPARATORS_RENDER`, :func:`~asz_core.reading.prose_text.quoted`). md keeps them raw (it
  quotes nothing, so no line there is said to be asz's own by its start) and html draws them as text. A copy of
  render 41 or before is made again as it was drawn.
- render 43: the brief md says a tool result retention took by the size its skeleton keeps (``result 103 bytes left
  out``, and its talk's and header's left-out figures so), where render 42 said the marker's (``33 bytes``; fix48l;
  :data:`~asz_core.reading.export_brief.SIZES_RENDER`). A copy of render 42 or before is made again as it was drawn.
- render 44: a conflict line (``summary.problems``: the json document, md's and html's head) names what differs
  between two records under one id, ``read under another model call (its call: X here, Y in S)``, ``with other parts
  (…)``, ``with another text or data in the same parts (…)``, where render 43 said ``with a different payload`` of
  each (trial 48c F4: a Kiro line copied byte for byte, read in the copy under the request a model line inserted
  before it opened; :mod:`~asz_core.view.conflict_fields`, :data:`FIELDS_RENDER`). A copy of render 43 or before is
  made again with the earlier words.
- render 45: a sub-agent's model calls seen only in the progress records Claude Code copied them into (its own
  transcript not landed) are counted from the copies, each an ``llm.call`` node read from its last copy under the tool
  call that started it, in every figure (md's and html's head, talks and call lines, a folder index's row, the json
  document), as ccusage counts them, and the problem line says ``counted from the last copy of each``, where render 44
  counted none of them (``in no figure``; trial 48a F1 follow-up, fix49a); and the models line of a conversation every
  call of which is counted in another session says ``models M, counted in ID``, not ``(none recorded)``
  (:data:`~asz_core.view.usage_relayed.RELAYED_RENDER`, :data:`~asz_core.view.usage_relayed.UNCOUNTED_BEFORE`). A copy
  of render 44 or before is made again as it was drawn, but a folder export's index row of such a conversation: the
  rows are kept counted by today's rule.
- render 46: the brief md draws a person's and the agent's texts as the full md does, a code fence a text leaves open
  closed after it (:func:`~asz_core.reading.export_blocks.sealed`, the full md's since render 16), where render 45
  left it open and a CommonMark reader drew the rest of the copy, its later talks too, as one code block (trial 49b
  F1; :data:`~asz_core.reading.export_brief.SEALED_RENDER`). A copy of render 45 or before is made again as it was
  drawn.
- render 47: an ``--in-range-only`` header (the audit form, prose and text) is titled by the window's own first prompt,
  or ``(no prompt in the window)`` when an earlier prompt titles the conversation, where render 46 took the first
  prompt up to the window's end, another day's (trial 49a F2: a 12-04 file titled by the 12-03 prompt, its masked
  credentials' fragments in a head whose ``credentials`` line counted none of them;
  :func:`~asz_core.reading.audit_window.window_title`, :data:`OWN_TITLE_RENDER`). A copy of render 46 or before is
  made again as it was drawn.
- render 48: the brief md says every tool result by the size of its landed part (the document's ``result_bytes``,
  which a skeleton keeps), ``result 86 bytes left out``, and its talk's and header's left-out figures so, where render
  47 said the drawn text's (107 bytes for a runtime's structured result drawn as ``key: value`` lines) and a result
  too large to land by its marker's size (fix49b; :data:`~asz_core.reading.export_brief.LANDED_SIZES_RENDER`): a copy
  made before ``asz prune`` then says what the pruned root says, and ``asz verify --export`` holds each such figure to
  it (:func:`~asz_core.reading.export_brief_laid.brief_laid`). A copy of render 47 or before is made again as it was
  drawn, its figures beside a tool call whose input went not checkable. The text form and ``--audit`` give a failed
  call's error whose text was too large to land by that text's size, all of it left out, ``error: 4,800 bytes, too
  large to land`` (``"too_large": true``), where render 47 gave the marker's, ``179 bytes, whole`` (fix48b;
  :data:`~asz_core.reading.audit_errors.CUT_ERRORS_RENDER`).
- render 49: a transcript line that is JSON holding no object (a string, a number, ``true``, an array of those:
  :func:`~asz_core.sessiondata.model.no_object_said`) is not among the ``undescribed records that could hold calls``
  of the problem line (md's, html's and the text form's head, the json document's ``summary.problems`` and
  ``undescribed_calls``), as a ``null`` line is not since trial 41b F6, and the json document's ``undescribed`` entry of
  such a line says what it is (``no_object``: ``a JSON string``, …), where render 48 counted ``"text"`` and ``12``
  among them (trial 49b F5; :data:`~asz_core.view.usage_undescribed.NO_OBJECT_RENDER`). A copy of render 48 or before
  is made again as it was drawn (:data:`~asz_core.view.usage_undescribed.OBJECTLESS_COUNTED`).
- render 50: the head's ``cost by kind`` (md, html, the text form's and the json document's ``cost_by_kind_line``)
  says one ``cache write`` where neither the conversation's models' prices nor its counts have a 1-hour cache write
  (an asz.yaml price with no ``cache_write_1h``, no 1-hour writes counted), where render 49 said ``cache write 5m
  $0.05 (11%), cache write 1h $0.00`` of a runtime with one cache write price (trial 49c F7;
  :func:`~asz_core.view.prices.hour_split`, :data:`~asz_core.view.prices.HOUR_SPLIT_RENDER`). A copy of render 49 or
  before is made again as it was drawn (:data:`~asz_core.view.prices.HOUR_SPLIT_ALWAYS`).
- render 51: the text form's header is short: ``credentials:`` ends ``forms 9 (40, docs/reading.md "Credentials"; no
  other form is masked or counted)`` where render 50 listed the 40 form names and ``not_covered``'s sentence (961
  characters), and ``status_read:`` says the window's results in one clause (144 characters, 286 before): trial 49a F4,
  the heads were 10 % of a day's bytes (:func:`~asz_core.reading.prose_text.short_head`, :data:`SHORT_HEAD_RENDER`).
  prose's JSON header keeps the list. A copy of render 50 or before is made again as it was drawn.
- render 52: md and html draw a tool result over ``--result-limit`` bytes (default 30,000) cut: its first lines and its
  last, whole lines, and between them a line saying its size in bytes and lines, what is drawn and left out, and where
  the whole is (``*[result cut for sharing: 1,820,022 bytes in 20,000 lines; …]*``, html ``<p class="cut">``), and
  html's folded tool line says ``result 1,820,022 bytes, cut``, where render 51 drew every result whole (trial 49b F2:
  a 1.8 MB md copy, a 934-page print of the html; :mod:`~asz_core.reading.export_cut`). The limit is the manifest's
  ``made.result_limit``; a copy whose manifest has none (render 51 or before) is made again whole.
- render 53: the problem line of a sub-agent's calls seen only in the progress records Claude Code copied them into
  also says the sub-agent's tool calls those copies hold, how many and by name (``and 19 tool call(s) of theirs: Bash
  11, Read 7, Glob 1, in no tool count …``), where render 52 said its model calls alone (trial 49d F1, fix49i;
  :data:`~asz_core.view.usage_relayed.RELAYED_TOOLS_RENDER`, :data:`~asz_core.view.usage_relayed.TOOLS_UNSAID`). A
  copy of render 52 or before is made again as it was drawn.
- render 54: those tool calls are counted: each is a ``tool`` step under its relayed model call (name, input, its
  copied result and failure, or ``attrs.result`` ``not_copied`` when no copy of its result landed), so the summary's
  tools and failures, the talk's tools, the tool lines of md, html, text and json, asz usage tools and the page count
  them (8463c716's main file alone: ``tools 196``, where render 53 said ``tools 177`` and the 19 in its problem line),
  and the problem line says them ``counted as tool calls under their model calls`` (fix50a, trial 49d F1's follow-up;
  :data:`~asz_core.view.usage_relayed.TOOLS_COUNTED_RENDER`, :data:`~asz_core.view.usage_relayed.TOOLS_UNCOUNTED`). A
  copy of render 53 or before is made again as it was drawn.
- render 55: the audit header (``--audit``'s and the text form's) names the conversation's ``runtime`` after its
  ``project`` (``runtime: kiro``) and counts its tool calls after ``errors`` (``tool_calls: made 3, failed 2, refused
  0``), where render 54 named no runtime and said ``errors: none`` alone while two tool calls had failed (trial 50c F2,
  F4); a step with no time (a Kiro CLI 2.x reply) reads ``**Assistant** · `msg/1/14:0``` in md (html the same), where
  render 54 drew an empty slot, ``**Assistant** ·  · `msg/1/14:0``` (trial 50c F6; :mod:`~asz_core.reading.head_said`,
  :data:`~asz_core.reading.export_render.HEAD_SAID_RENDER`). A copy of render 54 or before is made again as it was
  drawn.
- render 56: the audit header's ``cost`` none of whose tokens had a price (``"priced": false``) has ``usd`` and
  ``usd_exact`` null, and the text form says it ``cost: not priced (no price for gpt-4o-mini)``, where render 55 gave
  ``usd 0.0, usd_exact 0, unpriced gpt-4o-mini, priced no``, read as free (trial 50c F3;
  :func:`~asz_core.view.prices.costs_said`, :data:`~asz_core.reading.export_render.COST_SAID_RENDER`). A copy of render
  55 or before is made again as it was drawn.
- render 57: a folder export's index has a ``runtime`` column, each conversation's runtime's name (md: ``| last
  activity | title | project | runtime | talks | …``; html: after ``title``), where render 56 named none (trial 50c
  F2; :func:`~asz_core.reading.head_said.index_head`, :data:`~asz_core.reading.export_render.INDEX_RUNTIME_RENDER`).
  ``asz verify --export DIR`` reads the rows of either (:data:`~asz_core.cli.verify_index.MD_HEADS`). A copy of render
  56 or before is made again as it was drawn.
"""
