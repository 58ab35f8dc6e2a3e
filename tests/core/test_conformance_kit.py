"""The conformance kit fails an adapter that breaks the contract, with a message naming what (issue 19).

Each case is a real adapter (the plugin template's, changed in one way), written
as a third party writes its conformance test file, and run through the real kit by
a real pytest process; the five files run in ONE such process (a pytest start-up
costs seconds), each with its own selection of checks, and each test reads its
own file's outcome from the run's JUnit XML report.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Callable

import attrs
import pytest

TEMPLATE = Path(__file__).resolve().parents[2] / "plugin-template"

CASE = '''
from pathlib import Path

from asz_core.testing import AdapterConformance

from asz_adapter_example.plugin import ExampleCodexAdapter

{body}

class TestCase(AdapterConformance):
    adapter_class = Changed
    samples = Path({samples!r})
'''


#: case name -> (the class body changing the template's adapter, the -k selection of the kit's checks or None for all,
#: what makes the case's samples from a copy of the template's, or None for the template's own).
CASES: dict[str, tuple[str, str | None, Callable[[Path], None] | None]] = {}


def case(name: str, select: str | None, body: str, samples: Callable[[Path], None] | None = None) -> str:
    """Register a changed adapter for the one kit run; returns ``name``."""
    CASES[name] = (textwrap.dedent(body), select, samples)
    return name


@attrs.frozen
class Outcome:
    """What the kit said about one case's file: counts of failed, erroring and passing checks, and every message."""

    failed: int
    errors: int
    passed: int
    text: str


@pytest.fixture(scope="module")
def kit(tmp_path_factory) -> dict[str, Outcome]:
    """Every case of :data:`CASES` as its own test file, run through the kit by one real ``python -m pytest``."""
    if not (TEMPLATE / "asz_adapter_example").is_dir():
        pytest.skip("plugin-template is not beside the tests")
    work = tmp_path_factory.mktemp("kit")
    chosen = []
    for name, (body, select, make) in CASES.items():
        samples = TEMPLATE / "samples"
        if make is not None:
            samples = work / f"samples_{name}"
            shutil.copytree(TEMPLATE / "samples", samples)
            make(samples)
        (work / f"test_{name}.py").write_text(CASE.format(body=body, samples=str(samples)))
        chosen.append(f"(test_{name}.py and ({select}))" if select else f"test_{name}.py")
    env = dict(os.environ, PYTHONPATH=str(TEMPLATE) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    report = work / "report.xml"
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:langsmith_plugin", "-p", "no:anyio", "-p", "no:hypothesispytest", "-rN", f"--junitxml={report}", "-k", " or ".join(chosen),
            *(f"test_{name}.py" for name in CASES)]
    proc = subprocess.run(args, capture_output=True, text=True, env=env, cwd=work, timeout=600)
    assert proc.returncode in (0, 1) and report.is_file(), proc.stdout + proc.stderr
    found = {name: [0, 0, 0, []] for name in CASES}
    for tc in ET.parse(report).getroot().iter("testcase"):
        name = tc.get("classname", "").split(".")[0].removeprefix("test_")
        o = found[name]
        bad = [el for el in tc if el.tag in ("failure", "error")]
        o[0] += any(el.tag == "failure" for el in bad)
        o[1] += any(el.tag == "error" for el in bad)
        o[2] += not bad and not any(el.tag == "skipped" for el in tc)
        o[3] += [f"{el.get('message', '')}\n{el.text or ''}" for el in bad]
    return {name: Outcome(f, e, ok, "\n".join(t)) for name, (f, e, ok, t) in found.items()}


FROM_ASSISTANT = case("from_assistant", "session_data_values or every_file_verifies", '''
    class Changed(ExampleCodexAdapter):
        def convert_line(self, source, line, ord, off):
            rec = super().convert_line(source, line, ord, off)
            if rec.from_ == "agent":
                rec.from_ = "assistant"
            return rec
''')
UNKNOWN_KIND = case("unknown_kind", "session_data_values", '''
    class Changed(ExampleCodexAdapter):
        def convert_line(self, source, line, ord, off):
            rec = super().convert_line(source, line, ord, off)
            for p in rec.parts:
                if p.k == "media":
                    p.k = "image"
            return rec
''')
SAYS_NOTHING = case("says_nothing", "unaccounted", '''
    from asz_core import Record, source_sha

    class Changed(ExampleCodexAdapter):
        def convert_line(self, source, line, ord, off):
            rec = super().convert_line(source, line, ord, off)
            if b'"event_msg"' in line:  # drops the line's content and says nothing about it
                return Record(ord=ord, off=off, bytes=len(line), sha=source_sha(line))
            return rec
''')
UNDRAWN = case("undrawn", "cite_every_record", '''
    class Changed(ExampleCodexAdapter):
        def convert_line(self, source, line, ord, off):
            rec = super().convert_line(source, line, ord, off)
            if any(p.k == "reasoning" for p in rec.parts):
                rec.from_ = "runtime"  # reasoning said to come from the runtime: no rule draws it
            return rec
''')
FINDS_NONE = case("finds_none", "every_file_verifies", '''
    from pathlib import Path

    class Changed(ExampleCodexAdapter):
        def discover(self, source_root, *, include=(), exclude=()):  # a session filter that matches no sample
            return super().discover(Path(source_root), include=("no-such-session",), exclude=exclude)
''')
SHARED_IDS = case("shared_ids", "record_ids", '''
    class Changed(ExampleCodexAdapter):
        def convert_line(self, source, line, ord, off):  # ids numbered per session, as many runtimes write them
            rec = super().convert_line(source, line, ord, off)
            rec.id = f"line-{ord}"
            return rec
''')
SCOPED_IDS = case("scoped_ids", "record_ids", '''
    class Changed(ExampleCodexAdapter):
        def convert_line(self, source, line, ord, off):  # the same, prefixed by the session id
            rec = super().convert_line(source, line, ord, off)
            rec.id = f"{source.session}:line-{ord}"
            return rec
''')
#: The first sample session resumed: a new session's file repeats its lines, then goes on with one more.
RESUMED_ID = "0196a1b4-0000-7000-8000-000000000001"


def _resumed(samples: Path) -> None:
    """The first sample and its resumed copy; the second sample (whose ``line-N`` ids name other records) taken away."""
    first, second = sorted(samples.rglob("rollout-*.jsonl"))
    second.unlink()
    data = first.read_bytes()
    (first.parent / f"rollout-2026-11-20T11-00-00-{RESUMED_ID}.jsonl").write_bytes(data + data.splitlines(keepends=True)[-2])


RESUMED = case("resumed", "record_ids", '''
    class Changed(ExampleCodexAdapter):
        def convert_line(self, source, line, ord, off):  # ids numbered per session; the resumed copy repeats them
            rec = super().convert_line(source, line, ord, off)
            rec.id = f"line-{ord}"
            return rec
''', _resumed)
RESUMED_SCOPED = case("resumed_scoped", "record_ids", '''
    class Changed(ExampleCodexAdapter):
        def convert_line(self, source, line, ord, off):  # prefixed by the session whose file holds the line
            rec = super().convert_line(source, line, ord, off)
            rec.id = f"{source.session}:line-{ord}"
            return rec
''', _resumed)
UNDECLARED_FLAG = case("undeclared_flag", "flags_only_from_declared_rules or every_file_verifies", '''
    class Changed(ExampleCodexAdapter):
        def convert_line(self, source, line, ord, off):
            rec = super().convert_line(source, line, ord, off)
            if b'"role":"assistant"' in line:
                rec.flags = [*rec.flags, "finished"]  # a flag flags.py declares no rule for
            return rec
''')
NO_REPLY_TEXT = case("no_reply_text", "unaccounted", '''
    class Changed(ExampleCodexAdapter):
        def convert_line(self, source, line, ord, off):  # trial 35a F3: every reply's text left out, nothing said
            rec = super().convert_line(source, line, ord, off)
            if rec.from_ == "agent":
                rec.parts = [p for p in rec.parts if p.k != "text"]
            return rec
''')
RANDOM_IDS = case("random_ids", "ids_the_same_each_time or in_parallel", '''
    import uuid

    class Changed(ExampleCodexAdapter):
        def convert_line(self, source, line, ord, off):  # trial 35a F4: ids from uuid4()
            rec = super().convert_line(source, line, ord, off)
            rec.id = str(uuid.uuid4())
            return rec
''')
RANDOM_IDS_SERIAL = case("random_ids_serial", "ids_the_same_each_time", '''
    import uuid

    class Changed(ExampleCodexAdapter):
        sessions_in_parallel = False  # no parallel check to catch them: the ids check does

        def convert_line(self, source, line, ord, off):
            rec = super().convert_line(source, line, ord, off)
            rec.id = str(uuid.uuid4())
            return rec
''')
REDISCOVER = case("rediscover", "second_collect_lands_nothing", '''
    import itertools

    import attrs

    _n = itertools.count()

    class Changed(ExampleCodexAdapter):
        def discover(self, source_root, *, include=(), exclude=()):  # trial 35a F4: a new session id each discovery
            d = super().discover(source_root, include=include, exclude=exclude)
            n = next(_n)
            d.sources = [attrs.evolve(s, session=f"{s.session[:-4]}{n:04d}") for s in d.sources]
            return d
''')


def _two_copies(samples: Path) -> None:
    """Trial 35a F7: the first sample twice, under two session ids, byte for byte (a converter run twice)."""
    first, second = sorted(samples.rglob("rollout-*.jsonl"))
    second.unlink()
    (first.parent / f"rollout-2026-11-20T11-00-00-{RESUMED_ID}.jsonl").write_bytes(first.read_bytes())


TWO_COPIES = case("two_copies", "resumed_copy", '''
    class Changed(ExampleCodexAdapter):
        def convert_line(self, source, line, ord, off):  # ids prefixed by the session whose file holds the line
            rec = super().convert_line(source, line, ord, off)
            rec.id = f"{source.session}:line-{ord}"
            return rec
''', _two_copies)
USAGE_NO_CALL = case("usage_no_call", "capabilities", '''
    class Changed(ExampleCodexAdapter):
        def convert_line(self, source, line, ord, off):  # trial 39b F2: usage on a line naming no call
            rec = super().convert_line(source, line, ord, off)
            if rec.usage is not None:
                rec.call = ""
            return rec
''')

MADE_UP_USAGE = case("made_up_usage", "session_data_values", '''
    class Changed(ExampleCodexAdapter):
        def convert_line(self, source, line, ord, off):  # trial 43b F2: counts no call reports, in no source line
            rec = super().convert_line(source, line, ord, off)
            if rec.usage is not None:
                rec.usage.in_, rec.usage.out = -5, 10**15
            return rec
''')


def _spaced_cwd(samples: Path) -> None:
    """Trial 39b F4: a working directory holding a space (content the kit looks for) in every sample line naming it."""
    for f in samples.rglob("rollout-*.jsonl"):
        f.write_bytes(f.read_bytes().replace(b'"cwd":"/home/dev/', b'"cwd":"/home/dev/my '))


CWD_FIELD = case("cwd_field", "unaccounted", '''
    import json

    class Changed(ExampleCodexAdapter):
        def convert_line(self, source, line, ord, off):  # the session's cwd and version kept in record fields only
            rec = super().convert_line(source, line, ord, off)
            obj = json.loads(line)
            if obj.get("type") == "session_meta" and not obj["payload"].get("base_instructions"):
                rec.cwd, rec.runtime_version, rec.parts = obj["payload"]["cwd"], obj["payload"]["cli_version"], []
            return rec
''', _spaced_cwd)
MODEL_ON_TURN_ONLY = case("model_on_turn_only", "capabilities", '''
    class Changed(ExampleCodexAdapter):
        def convert_line(self, source, line, ord, off):  # trial 46b F5: the model on the turn_context record alone
            rec = super().convert_line(source, line, ord, off)
            if b'"turn_context"' not in line:
                rec.model = ""
            return rec
''')
GLOSSARY_DERIVED = case("glossary_derived", "glossary_names_what", '''
    from asz_core import Term

    from asz_adapter_example.convert import DIALECT

    class Changed(ExampleCodexAdapter):  # trial 47c F5: terms the records carry called derived, "does not occur"
        glossaries = {DIALECT: tuple(Term(t.unified, "", "", "asz derives it or it does not occur")
                                     if t.unified in ("model", "epoch.boundary") else t
                                     for t in ExampleCodexAdapter.glossaries[DIALECT])}
''')
UNCHANGED = case("unchanged", None, '''
    class Changed(ExampleCodexAdapter):
        pass
''')


def test_a_plugin_that_lands_from_assistant_fails_naming_the_field(kit):
    o = kit[FROM_ASSISTANT]
    # the kit's own check names the source line and the field
    assert "rollout-2026-11-20T10-00-00-0196a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b.jsonl:5: from: record ord 5: " \
           "'assistant' is not a Session Data value (one of agent, external, runtime)" in o.text
    # and a real collect refuses to land it: the pass reports the line and the field
    assert "wrote line 5 outside the vocabulary: from: record ord 5: 'assistant' is not a Session Data value" in o.text
    assert (o.failed, o.errors) == (1, 1), o  # the check, and the collected root the other checks need


def test_a_plugin_with_an_unknown_part_kind_fails_naming_the_part(kit):
    o = kit[UNKNOWN_KIND]
    assert o.failed >= 1, o
    assert ":4: parts[1].k: record ord 4: 'image' is not a Session Data value (one of text, reasoning, call, result, media, data, unknown)" in o.text


def test_a_plugin_whose_records_say_nothing_fails(kit):
    o = kit[SAYS_NOTHING]
    assert o.failed + o.errors >= 1, o
    assert "records that say nothing of their line" in o.text
    assert "sessions/2026/11/20/rollout-2026-11-20T10-00-00-0196a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b.jsonl:8 (" in o.text


def test_a_plugin_whose_document_leaves_text_undrawn_fails(kit):
    o = kit[UNDRAWN]
    assert o.failed + o.errors >= 1, o
    assert "0196a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b: the document cites 9 of 10 records with text: ['not drawn: " in o.text, o.text[-2000:]


def test_the_template_itself_passes_the_kit(kit):
    o = kit[UNCHANGED]
    assert (o.failed, o.errors) == (0, 0) and o.passed >= 10, o.text[-3000:]


def test_samples_that_land_nothing_say_what_discovery_found(kit):
    """Trial 20: ``AssertionError: the samples landed nothing`` said nothing of the source root or of discovery."""
    o = kit[FINDS_NONE]
    assert o.errors >= 1, o
    assert f"the samples landed nothing: samples {TEMPLATE / 'samples'} (copied to the source root " in o.text, o.text[-3000:]
    assert "holding sessions/)" in o.text
    assert "example-codex.discover(" in o.text and ") found 0 source(s), skipped 2, errors 0, pending 0" in o.text
    assert ".jsonl: excluded by the session filters" in o.text
    assert "is samples the folder discover() expects as its source root (not one level above or below)?" in o.text


def _sample_lines() -> dict[str, list[bytes]]:
    """Each sample rollout file's session id (the UUID ending its name) -> its lines."""
    return {p.stem[-36:]: p.read_bytes().splitlines() for p in sorted((TEMPLATE / "samples").rglob("rollout-*.jsonl"))}


def test_samples_whose_sessions_share_record_ids_fail_naming_the_sessions_and_ids(kit):
    """Trial 25a F3: ids numbered per session passed the kit, while every conversation of the root held open
    ``shared_id`` entries. Every line of both files has an id ``line-N``: the ids the two share are ``line-1`` to the
    shorter file's last line."""
    o = kit[SHARED_IDS]
    assert o.failed == 1, o
    (a, la), (b, lb) = sorted(_sample_lines().items())
    n = min(len(la), len(lb))
    ids = sorted(f"line-{i}" for i in range(1, n + 1))
    assert ("example-codex: record ids must be unique across a storage root, but sessions that do not continue each "
            "other share ids (make them unique, e.g. prefixed by the session id):") in o.text
    assert f"sessions {a}, {b} share {n} id(s): {', '.join(ids[:8])}{', …' if n > 8 else ''}\n" in o.text, o.text[-2000:]
    assert (kit[SCOPED_IDS].failed, kit[SCOPED_IDS].errors, kit[SCOPED_IDS].passed) == (0, 0, 2), kit[SCOPED_IDS].text


def test_a_session_resuming_another_shares_its_ids_and_passes(kit):
    """A session whose file opens by repeating another's records (a resumed copy, its ids ``line-N`` the same records)
    continues it: the ids it repeats are no shared ids, so the kit passes it."""
    o = kit[RESUMED]
    assert (o.failed, o.errors, o.passed) == (0, 0, 2), o.text[-3000:]


def test_a_resumed_copy_under_ids_of_its_own_session_fails(kit):
    """House26: the same resumed copy, its ids prefixed by the session whose file holds each line (the advice for ids
    numbered per session, applied to a copy): the copy's lines land under new ids, so they and their calls are counted
    in both conversations and the copy continues nothing. The id check above passes it (no id is shared); the kit's
    check of a resumed copy fails it, naming both sessions and the first ids, counted from the sample file."""
    o = kit[RESUMED_SCOPED]
    assert (o.failed, o.errors, o.passed) == (1, 0, 1), o.text[-3000:]
    name, lines = sorted(_sample_lines().items())[0]
    copy = lines + [lines[-2]]  # _resumed: every line of the first sample, then its last but one again
    last = {sid: {line: i for i, line in enumerate(ls, 1)} for sid, ls in ((name, lines), (RESUMED_ID, copy))}
    a = sorted(last)
    pairs = sorted(f"{a[0]}:line-{last[a[0]][x]} / {a[1]}:line-{last[a[1]][x]}" for x in set(lines))
    n = len(pairs)
    assert ("example-codex: a record a runtime copies into a resumed session must keep the id it first landed with "
            "(prefix an id with the session that first wrote the record, not the one whose file holds the copy), or "
            "the copy is counted twice:") in o.text, o.text[-3000:]
    assert (f"sessions {a[0]}, {a[1]} hold {n} line(s) landed in each under ids naming each: "
            f"{'; '.join(pairs[:4])}{'; …' if n > 4 else ''}") in o.text, o.text[-3000:]


def test_a_flag_with_no_declared_rule_fails_naming_the_source_line(kit):
    """Trial 25a F7: the kit named the landed file's row; it names the source line and the field, and the real
    collect refuses the line (an error naming the source file and line, the line kept as unknown)."""
    o = kit[UNDECLARED_FLAG]
    assert (o.failed, o.errors) == (1, 1), o
    name, lines = sorted(_sample_lines().items())[0]
    n = next(i for i, line in enumerate(lines, 1) if b'"role":"assistant"' in line)
    said = (f"'finished' has no flag rule in dialect example-codex/1 (its rules: context_reset, external_input, "
            f"injected, reset_summary, system_prompt)")
    assert f"-{name}.jsonl:{n}: flags[0]: record ord {n}: {said}" in o.text, o.text[-3000:]
    assert f"-{name}.jsonl: adapter example-codex wrote line {n} with a flag it declares no rule for: flags[0]: record ord {n}: {said}" in o.text


def test_a_plugin_that_drops_every_reply_text_fails_naming_the_field(kit):
    """Trial 35a F3: records with an id but no part for the reply's text passed 'no line left unaccounted'. The kit
    names each reply line (counted from the sample files: every assistant message whose text holds a space; a one-word
    reply such as ``5.`` is no content the kit can tell from an id, docs/adapters.md) and the field it lost."""
    import json

    o = kit[NO_REPLY_TEXT]
    assert (o.failed, o.errors) == (1, 0), o.text[-3000:]
    replies = [(sid, n, line) for sid, lines in _sample_lines().items() for n, line in enumerate(lines, 1)
               if b'"role":"assistant"' in line and " " in json.loads(line)["payload"]["content"][0]["text"]]
    assert len(replies) == 2
    assert f"example-codex leaves content of {len(replies)} field(s) of the samples unaccounted for" in o.text, o.text[-3000:]
    for sid, n, line in replies:
        assert f"-{sid}.jsonl:{n}: payload.content[0].text (" in o.text, (sid, n, o.text[-3000:])


def test_random_record_ids_fail_saying_so(kit):
    """Trial 35a F4: ids from uuid4() passed every check of an adapter landing sessions one by one, and failed the
    parallel one with a bare AssertionError. Both checks now say the ids differ, naming a line and both ids."""
    for name in (RANDOM_IDS, RANDOM_IDS_SERIAL):
        o = kit[name]
        assert "the same line converts to other ids each time (record id, parent, call, part ids)" in o.text, o.text[-3000:]
        assert ".jsonl:1: ('" in o.text and ", ('',)) the first time, ('" in o.text, o.text[-3000:]
    o = kit[RANDOM_IDS]
    assert (o.failed, o.errors) == (2, 0), o.text[-3000:]
    assert "declares sessions_in_parallel, but two collects of the same samples at the same clock, in one process " \
           "and in two, land different bytes: " in o.text
    assert "landed file(s) differ (" in o.text and " line 2 is\n" in o.text
    assert (kit[RANDOM_IDS_SERIAL].failed, kit[RANDOM_IDS_SERIAL].errors) == (1, 0)


def test_a_session_id_new_at_each_discovery_fails_saying_so(kit):
    """Trial 35a F4: the second pass's failure said only the pass's counters."""
    o = kit[REDISCOVER]
    assert (o.failed, o.errors) == (1, 0), o.text[-3000:]
    assert "a second pass over the unchanged samples landed " in o.text
    assert "discover() names the unchanged samples otherwise each time: only the first call gave session " in o.text
    assert "a source's session, kind, stream and src must come from the source" in o.text


def test_two_copies_of_one_transcript_are_no_resumed_copy(kit):
    """Trial 35a F7: two sessions holding the same lines, no more, failed the resumed-copy check though neither
    resumes the other; the check's premise is a resume, which goes on after the lines it repeats (RESUMED_SCOPED
    above still fails)."""
    o = kit[TWO_COPIES]
    assert (o.failed, o.errors, o.passed) == (0, 0, 1), o.text[-3000:]


def test_usage_in_no_model_call_fails_naming_the_lines(kit):
    """Trial 39b F2: the kit passed an adapter whose usage records name no ``call`` (their tokens in no figure) because
    some record carried usage. It fails naming each such line; the template (its token_count line carries the call it
    reports) passes. The usage lines are counted from the sample files."""
    o = kit[USAGE_NO_CALL]
    assert (o.failed, o.errors) == (1, 0), o.text[-3000:]
    lines = [(sid, n) for sid, ls in _sample_lines().items() for n, line in enumerate(ls, 1) if b'"token_count"' in line
             and b'"last_token_usage"' in line]
    assert lines
    assert (f"example-codex: {len(lines)} of the {len(lines)} record(s) carrying usage are in no model call, so their "
            "tokens are in no figure") in o.text, o.text[-3000:]
    for sid, n in lines:
        assert f"(source line {n}, from runtime, call (none))" in o.text, (sid, n, o.text[-3000:])


def test_content_kept_in_a_record_field_is_accounted_for(kit):
    """Trial 39b F4: a working directory kept in ``cwd`` (and the version in ``runtime_version``), in no part, read as
    content left unaccounted for. Every record field counts (docs/adapters.md: "a record field")."""
    assert b'"cwd":"/home/dev/' in (TEMPLATE / "samples").rglob("rollout-*.jsonl").__next__().read_bytes()
    o = kit[CWD_FIELD]
    assert (o.failed, o.errors, o.passed) == (0, 0, 1), o.text[-3000:]


def test_usage_counts_no_call_reports_and_no_line_holds_fail_naming_the_lines(kit):
    """Trial 43b F2: an adapter writing ``in -5`` and ``out 10**15`` passed the kit (and collect, and verify: seed 000
    lets a count be any integer of 64 bits, and the Claude Code adapter keeps a negative count as its source writes
    it); the kit fails each such count the converted line does not hold, naming the line; the template passes (the
    unchanged case). The usage lines are counted from the sample files."""
    o = kit[MADE_UP_USAGE]
    assert (o.failed, o.errors) == (1, 0), o.text[-3000:]
    lines = [(sid, n) for sid, ls in _sample_lines().items() for n, line in enumerate(ls, 1) if b'"token_count"' in line
             and b'"last_token_usage"' in line]
    assert lines and "example-codex writes values outside Session Data's vocabularies, or usage counts its sources do not hold" in o.text
    for sid, n in lines:
        assert f".jsonl:{n}: usage.in -5 is no count a call reports, and the line does not hold it" in o.text, (sid, n)
        assert f".jsonl:{n}: usage.out 1,000,000,000,000,000 is no count a call reports" in o.text, (sid, n)


def test_a_model_that_reaches_no_call_fails_naming_the_session(kit):
    """Trial 46b F5: the template landed turn_context's model on that runtime record alone, so the readers said
    'models not recorded by the runtime' and priced nothing, and the kit passed it. It fails now, naming the session,
    the model and the line writing it (counted from the sample file); the template itself passes (UNCHANGED)."""
    import json

    o = kit[MODEL_ON_TURN_ONLY]
    assert (o.failed, o.errors) == (1, 0), o.text[-3000:]
    named = [(sid, n, json.loads(line)["payload"]["model"]) for sid, ls in _sample_lines().items()
             for n, line in enumerate(ls, 1) if json.loads(line)["type"] == "turn_context"]
    assert len(named) == 1
    sid, n, model = named[0]
    assert (f"example-codex: session {sid}: 1 record(s) name a model ({model!r} at " in o.text
            and f".jsonl:{n}) but none of its 1 model call(s) does, so the readers say 'models not recorded by the "
                "runtime'" in o.text), o.text[-3000:]


def test_a_glossary_calling_derived_what_the_records_carry_fails_naming_the_line(kit):
    """Trial 47c F5: a glossary calling ``error.api``, ``id`` and ``parent`` derived ("does not occur") passed the kit
    while the records carried all three. Calling the template's ``model`` and ``epoch.boundary`` derived fails, naming
    the first line that carries each (counted from the sample files: the first ``turn_context`` line naming a model,
    the ``compacted`` line); the template itself passes (``test_the_template_itself_passes_the_kit``)."""
    import json

    o = kit[GLOSSARY_DERIVED]
    assert (o.failed, o.errors) == (1, 0), o.text[-3000:]
    lines = _sample_lines()
    first = sorted(lines)[0]
    n, model = next((i, json.loads(x)["payload"]["model"]) for i, x in enumerate(lines[first], 1)
                    if b'"turn_context"' in x and b'"model"' in x)
    compacted = [(sid, i) for sid, ls in lines.items() for i, x in enumerate(ls, 1) if b'"type":"compacted"' in x]
    assert len(compacted) == 1
    said = "is derived in the glossary ('asz derives it or it does not occur'), but line {} of "
    assert f"example-codex/1: 'model' {said.format(n)}" in o.text, o.text[-3000:]
    assert f"-{first}.jsonl carries it (its record field model is {model!r})" in o.text, o.text[-3000:]
    sid, i = compacted[0]
    assert f"example-codex/1: 'epoch.boundary' {said.format(i)}" in o.text, o.text[-3000:]
    assert f"-{sid}.jsonl carries it (its flag context_reset draws the step epoch.boundary)" in o.text
