"""A masked copy made by an asz with other credential forms, checked as its own masking made it (docs/verify.md, "A
masked export": the forms).

The credential forms (:mod:`asz_core.view.secret_kinds`, :mod:`asz_core.view.secret_guards`) were widened by sessions
42, 43 and 44 and narrowed here and there (a value starting ``:`` is no password). A copy an earlier asz masked then is not
the copy this asz masks: made again with today's forms it holds ``***`` where the copy left a ``--password PASS``
whole (session 43: 6 problems on an md copy made at fbe44e18), though every text of the copy is the landed one.
Copies are archived evidence: verify proves a copy is faithful, not that it masks what today's asz would. So:

- a manifest names the forms that made it, :data:`FORMS` (``masks_forms``; one without it was made before they were
  numbered), and a copy of today's forms is checked against today's masking alone, as before;
- a copy of other forms whose check against the root finds problems is made again masked as its manifest says
  (:class:`AsMasked` under :class:`~asz_core.view.secret_forms.choosing`): in each landed text, a credential today's
  forms find is masked where the manifest lists a mask of its form and fingerprint in that text (``texts_sha256``),
  else over the start of its value the manifest lists so (forms 9 reads a command's password further:
  :meth:`AsMasked._shorter`), else left whole as the copy left it; a mask the manifest lists that no form of today's takes (a form narrowed) is
  put back over the span of its form's expression whose fingerprint is the manifest's; one the manifest does not
  list whose value stands nowhere in the copy is masked as today (past a 2,000-byte clip, or masked and then cut by
  it, a mask no manifest lists: review45, a json copy of forms 6). Both need the manifest's mask
  digests: unkeyed (a manifest before session 37) or keyed by this root's mask key. A root without that key (one
  ``asz receive`` landed the copy's files in), and an unmasked copy's titles and headings (masked in every export),
  tell them by what the copy holds around each credential: masked where its mask with the text beside it stands in the
  copy, else whole where its value with that text does, else as today; a narrowed form's mask is not put back;
- the copy made so must still be the copy byte for byte, so a mask moved, widened or edited, a text changed, or a
  credential unmasked by hand where the manifest lists its mask is named as before (line and column), exit 1;
- each credential today's forms mask that stands whole in the copy is said in a note, never a problem:
  ``note: COPY: N credential(s) asz masks today are whole in this copy (made with earlier forms): line L column C
  (FORM), …`` (the reader must know the copy holds them; ``asz export`` again masks them).
"""

from __future__ import annotations

import hashlib
import html
import re
from typing import Callable, Optional

import orjson

__all__ = ["FORMS", "FORMS_SAID", "AsMasked", "as_left_out", "as_masked", "forms_said"]

#: The credential forms' number: bumped with each change of what :mod:`asz_core.view.secret_kinds`,
#: :mod:`asz_core.view.secret_guards` or the finding in :mod:`asz_core.view.secret_forms` take
#: (``tests/reading/test_export_forms.py`` fails on a change of them without a bump).
FORMS = 11
#: What each number's forms are, for the note (docs/reading.md, "Credentials").
FORMS_SAID = {1: "forms 1 (session 43, 3daf4301: flags' spaced passwords, curl's and Azure's forms, passphrases)",
              2: "forms 2 (session 44: a PEM key's line breaks escaped at any depth, an address's password holding #)",
              3: "forms 3 (session 44, fix44g: env secrets, API key, token and cookie headers, docker, sshpass, "
                 "redis-cli and .netrc passwords, encoded passwords, base64 and continued tokens)",
              4: "forms 4 (session 44, fix44b: --secret, --token and --api-key values, mysql -p before a database, "
                 "two-word and quoted passphrases, HTML character references read)",
              5: "forms 5 (session 44, review44: PASS alone given with = only, PASS: NAME being a test's result; "
                 "no --next-token, --client-token or other page's or request's token)",
              6: "forms 6 (session 44, fix44k: a continued token found in a JSON text as the search index holds it, "
                 "fingerprinted as the token without its continuations)",
              7: "forms 7 (session 45, fix45e: a flag's value in an argument list, --secret-key and "
                 "--secret-access-key values, mysql -p beside a long switch or across line continuations)",
              8: "forms 8 (session 46, fix46d: mysql -p's value as an argument list's next item, aws configure set's "
                 "aws_secret_access_key and aws_session_token values)",
              9: "forms 9 (session 49, fix49g: a command's password read to its shell word's end, quoted or holding "
                 "& ( ), not cut there)",
              10: "forms 10 (session 49, fix49g: a command's flag's quoted password holding a space, "
                  "--password 'Xk9 mQ2;pL7')",
              11: "forms 11 (session 49, review49: a command's password in a JSON text, a tool input as the exports and "
                  "the search index read it, holding a backslash-escaped character or \\\" between quotes)"}
#: How many characters of a text each side of a credential tell, without the manifest's digests, whether the copy
#: holds it masked or whole (:meth:`AsMasked._whole`).
AROUND = 12
#: At most this many places are named in the note (then how many more).
NAMED = 10


def forms_said(body: dict) -> str:
    """Which forms made the copy of manifest ``body``, in words."""
    n = body.get("masks_forms")
    return FORMS_SAID.get(n, f"forms {n}") if n is not None else "earlier forms"


class AsMasked:
    """``chosen(text, cuts)`` for :class:`~asz_core.view.secret_forms.choosing`: the cuts of ``text`` the copy of
    manifest ``body`` holds (module docstring). ``mac_key``: the key its digests were keyed by (None: unkeyed);
    ``comparable`` False: they cannot be computed here (another root's key, none; an unmasked copy has none), so each
    credential is told by what the copy (``copy``, its text) holds around it (:meth:`_whole`). After the copy is
    made so, ``changed`` says whether any text was masked otherwise than today's forms mask it, and ``whole`` holds
    ``{fingerprint: (kind, value)}`` of each credential left whole (a text or ``--audit`` header's list of forms is
    drawn as the copy's by :func:`~asz_core.reading.export_render.as_forms`)."""

    def __init__(self, body: dict, mac_key: Optional[bytes], comparable: bool, copy: str = ""):
        self.mac_key, self.comparable, self.copy = mac_key, comparable, copy
        self.by_text: dict[str, set] = {}
        for m in body.get("masks") or ():
            for d in m.get("texts_sha256") or ():
                self.by_text.setdefault(d, set()).add((m.get("kind"), m.get("fingerprint")))
        self.changed, self.whole, self.part = False, {}, {}

    def _whole(self, text: str, cuts: list, k: int) -> bool:
        """Whether the copy holds credential ``cuts[k]`` of ``text`` whole and nowhere masked: the value with up to
        :data:`AROUND` characters of its line before or after it (not past the cuts beside it) stands in the copy (as
        written, JSON- or HTML-escaped), and the mask with them does not."""
        a, b, shown = cuts[k][:3]
        lo = max(cuts[k - 1][1] if k else 0, a - AROUND, text.rfind("\n", 0, a) + 1)
        hi = min(cuts[k + 1][0] if k + 1 < len(cuts) else len(text), b + AROUND, *[x for x in (text.find("\n", b),) if x >= 0])
        before, after = text[lo:a], text[b:hi]

        def stands(middle: str) -> bool:
            return any(_found(self.copy, piece) for piece in (before + middle, middle + after) if len(piece) > len(middle))

        return not stands(shown) and stands(text[a:b])

    def _mark(self, raw: str) -> str:
        from ..storage.mask_key import keyed_mark

        return keyed_mark(self.mac_key, raw) if self.mac_key is not None else raw

    def _text(self, text: str) -> str:
        from ..storage.mask_key import keyed_text

        d = hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()
        return keyed_text(self.mac_key, d) if self.mac_key is not None else d

    def __call__(self, text: str, cuts: list) -> list:
        if not self.comparable:  # told by what the copy holds around each: masked, else whole, else as today
            kept = [c for k, c in enumerate(cuts) if not self._whole(text, cuts, k)]
        else:
            want = self.by_text.get(self._text(text), set())
            kept = []
            for c in cuts:  # masked as listed, else its start as listed (forms 9 read further), else whole if it stands
                if (c[4], self._mark(c[3])) in want:
                    kept.append(c)
                elif (short := self._shorter(text, c, want)) is not None:
                    kept.append(short)
                elif not _found(self.copy, text[c[0]:c[1]]):
                    kept.append(c)
            have = {(c[4], self._mark(c[3])) for c in kept}
            kept += _narrowed(text, [w for w in want if w not in have], kept, self._mark)
            kept.sort(key=lambda c: c[0])
        if kept != cuts:
            self.changed = True
            starts = {c[0]: c for c in kept}
            for c in cuts:
                if c not in kept and (k := starts.get(c[0])) is not None and k[1] < c[1]:  # masked only in part
                    self.part.setdefault(c[3], (c[4], k[2] + text[k[1]:c[1]]))
                elif c not in kept:
                    self.whole.setdefault(c[3], (c[4], text[c[0]:c[1]]))
        return kept

    def _shorter(self, text: str, c: tuple, want: set) -> Optional[tuple]:
        """The cut of the start of credential ``c`` of ``text`` that the manifest lists (its form and fingerprint in
        ``want``), the longest, or None: a copy of forms 8 or before masked a command's password only up to a ``&``,
        ``(`` or a quoted space, which forms 9 reads past (:mod:`asz_core.view.secret_shell`; review49). Of a command's
        password (:data:`~asz_core.view.secret_shell.SHELL_READ`) the manifest may list it under another command's form:
        one mask's ``***`` is listed under the first form it was seen with for every text it stands in (trial 49a's
        12-04 day copy: ``Tr0ub4dor`` a curl-password in one text, a mysql-password in another, both listed as the
        latter: 1 problem, its texts_sha256), so any of those forms is taken, and the cut is given the listed one."""
        from ..view.secret_forms import fingerprint, masked
        from ..view.secret_shell import SHELL_READ

        kinds = (c[4], *sorted(SHELL_READ - {c[4]})) if c[4] in SHELL_READ else (c[4],)
        for end in range(c[1] - 1, c[0], -1):
            value = text[c[0]:end]
            mark = self._mark(fingerprint(value))
            if (kind := next((k for k in kinds if (k, mark) in want), None)) is not None:
                return c[0], end, masked(value, kind), fingerprint(value), kind
        return None


#: A text or ``--audit`` header's count of the credentials in the parts it leaves out (:meth:`~asz_core.reading.
#: prose_audit.Audit.credentials`), as the text form and as prose's JSON write it.
_LEFT_OUT = re.compile(rb'left_out \(places (\d+), credentials (\d+), not_written (\d+)\)'
                       rb'|"left_out":\{"places":(\d+),"credentials":(\d+),"not_written":(\d+)\}')


def as_left_out(copy: bytes, again: bytes, body: dict, said: list[str]) -> bytes:
    """``again`` (a copy made again) with each header's ``left_out`` credential counts drawn as the ``copy``'s when
    the copy's forms (manifest ``body``'s ``masks_forms``) are not today's and each of its counts is at most today's:
    no mask stands for a credential found only in a part the form leaves out, so today's forms' finds there cannot
    be told from a changed count but by this bound (review45: a text copy of forms 6 whose Bash argument list held a
    token, 0 where forms 7 count 1). Each such header is said in ``said`` (a note); a count above today's is left to
    fail. ``again`` as it is for a copy of today's forms or when the headers do not pair up."""
    if body.get("masks_forms") == FORMS:
        return again
    now, was = list(_LEFT_OUT.finditer(again)), list(_LEFT_OUT.finditer(copy))
    if not now or len(now) != len(was):
        return again
    out, at, name = [], 0, (body.get("export") or {}).get("file") or "the copy"
    for n, w in zip(now, was):
        counts_now, counts_was = [int(x) for x in n.groups() if x], [int(x) for x in w.groups() if x]
        if counts_was != counts_now and len(counts_was) == 3 and all(a <= b for a, b in zip(counts_was, counts_now)):
            out += [again[at:n.start()], w.group(0)]
            at = n.end()
            said.append(f"note: {name}: its header's left_out counts are those of {forms_said(body)}, not today's "
                        "(places {}, credentials {}, not_written {})".format(*counts_now))
    return b"".join(out) + again[at:]


def _narrowed(text: str, wanted: list, kept: list, mark: Callable[[str], str]) -> list:
    """Cuts of ``text`` for the masks ``wanted`` (``(kind, fingerprint)``) no form of today's took there: the span of
    the value of a match of the form's expression (its guard not asked) whose fingerprint is the manifest's, not
    overlapping ``kept``."""
    from ..view.secret_forms import expression, fingerprint, masked

    out: list = []
    for kind, mark_was in wanted:
        rx = expression(kind) if kind != "private-key" else None
        for m in rx.finditer(text) if rx is not None else ():
            a, b = m.span("value" if "value" in rx.groupindex else 0)
            value = text[a:b]
            if mark(fingerprint(value)) == mark_was and not any(a < c[1] and c[0] < b for c in kept + out):
                out.append((a, b, masked(value, kind), fingerprint(value), kind))
                break
    return out


def as_masked(copy: bytes, body: dict, key: Optional[bytes],
              check: Callable[[], tuple[list[str], list[str]]]) -> tuple[list[str], list[str]]:
    """``check()``'s ``(said, problems)`` of a copy against the root (:func:`~asz_core.reading.export_manifest.check_against_root`
    drawn as its manifest ``body`` says), the copy made again masked as its manifest says when its forms are not
    today's and today's masking finds problems (module docstring; ``copy``: its bytes): then the attempt with fewer problems, with the note
    of each credential today's forms mask that stands whole in the copy (none of an unmasked copy: it is whole by choice,
    but for its titles and headings, masked in every export, told by the credential's value). ``key``: the root's mask
    key (None: none)."""
    said, problems = check()
    if not problems or body.get("masks_forms") == FORMS:
        return said, problems
    from ..view.secret_forms import choosing
    from .export_keyed import held_key

    mac_key, uncompared = held_key(body, key)
    text, plain = copy.decode("utf-8", "surrogateescape"), (body.get("made") or {}).get("redact") is False
    chosen = AsMasked(body, mac_key, not (uncompared or plain), text)
    with choosing(chosen):
        again, wrong = check()
    if not chosen.changed or len(wrong) >= len(problems):
        return said, problems
    notes = _note(text, body, chosen.whole) + _note(text, body, chosen.part, "masked only in part")
    return again + (notes if not plain else []), wrong


def _note(copy: str, body: dict, whole: dict, how: str = "whole") -> list[str]:
    """The note naming where each credential of ``whole`` (``{fingerprint: (kind, value)}``) stands in ``copy``
    (the manifest ``body``'s ``export.file``), or none when none stands in it; ``how`` "masked only in part": each
    value is the copy's mask followed by the tail its forms left (:meth:`AsMasked._shorter`)."""
    name = (body.get("export") or {}).get("file") or "the copy"
    places, n = [], 0
    for kind, value in whole.values():
        at = _found(copy, value)
        n += bool(at)
        for i in at:
            line = copy.count("\n", 0, i) + 1
            places.append((line, i - (copy.rfind("\n", 0, i) + 1) + 1, kind))
    if not places:
        return []
    places.sort()
    listed = ", ".join(f"line {line} column {col} ({kind})" for line, col, kind in places[:NAMED])
    more = f", … and {len(places) - NAMED} more place(s)" if len(places) > NAMED else ""
    return [f"note: {name}: {n} credential(s) asz masks today are {how} in this copy (made with {forms_said(body)}): "
            f"{listed}{more}; asz export again makes a copy masked with today's forms"]


def _found(text: str, value: str) -> list[int]:
    """Where ``value`` stands in ``text`` (character offsets), as written, JSON-escaped or HTML-escaped, or as the
    characters it stands for when it is read out of a JSON text (a tool input's ``\\`` or ``\"``: forms 9 reads a
    quoted password holding them, review49)."""
    forms = [value, orjson.dumps(value).decode()[1:-1], html.escape(value)]
    if "\\" in value:
        try:
            read = orjson.loads(f'"{value}"')
            forms += [read, html.escape(read)] if isinstance(read, str) else []
        except orjson.JSONDecodeError:
            pass
    return sorted({i for form in dict.fromkeys(forms) for i in _at(text, form)})


def _at(text: str, form: str) -> list[int]:
    """Where ``form`` stands in ``text`` (character offsets)."""
    out, at = [], text.find(form)
    while at >= 0 and form:
        out.append(at)
        at = text.find(form, at + 1)
    return out
