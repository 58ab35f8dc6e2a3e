"""The companion files of a conversation's tool results, as the document shows them (docs/session-data.md, Dropped):
a result the adapter cut to a preview names its full output's file under ``dropped`` (``what: "full output in
<path>"``), and the file lands as a ``tool_output`` record labelled with its file name (its latest version wins)."""

from __future__ import annotations

from ..sessiondata.model import companion_file_name, companion_path

__all__ = ["Companions", "missing_companion_line"]


class Companions:
    """A mixin of :class:`~asz_core.view.view_base.ViewBase` (its ``sess`` :class:`~asz_core.view.session_records.LandedSession`
    and its chain reader ``b``): each result's companion file looked up once, for drawing, coverage and a list row's
    problems alike."""

    def _companions_shown(self, step_cited: dict[tuple[int, int], str]) -> dict[tuple[int, int], str]:
        """(seq, row) of each landed companion record → the step whose result names it (its ``full_output``)."""
        out: dict[tuple[int, int], str] = {}
        if not self._companions():
            return out
        for seq, recs in self.sess.records.items():
            for row, rec in enumerate(recs, 1):
                node = step_cited.get((seq, row))
                for _, hit in self._companions_named(rec) if node else ():
                    if hit is not None:
                        out.setdefault((hit[0], hit[1]), node)
        return out

    def _companions_named(self, rec: dict) -> list[tuple[str, tuple[int, int, int] | None]]:
        """``(path, landed)`` of each companion file ``rec``'s ``dropped`` names, in order: ``landed`` is
        :meth:`_companions`' ``(seq, row, bytes)`` of the record labelled with the path's file name
        (:func:`~asz_core.sessiondata.model.companion_file_name`, the adapter's label rule), None when none landed.

        The one look-up of drawing (:meth:`_companion_keys`), coverage (:meth:`_companions_shown`) and a
        list row's problems (:meth:`missing_companions`), so the three never disagree.
        """
        out = []
        for x in rec.get("dropped", ()):
            path = companion_path(x.get("what")) if isinstance(x, dict) else None
            if path is not None:
                out.append((path, self._companions().get(companion_file_name(path))))
        return out

    def _companion_keys(self, rec: dict, d: dict) -> None:
        """A result that is a preview of a companion file: ``full_output`` links the landed file, or a ``missing`` problem.

        The adapter lists the companion in the result record's ``dropped`` as
        ``what: "full output in <path>"`` (docs/session-data.md, Dropped);
        the companion lands as a ``tool_output`` record whose ``label`` is the
        file name (its latest version wins).
        """
        for path, found in self._companions_named(rec):
            if found is None:
                line = missing_companion_line(path)
                if line not in self.b.problems:
                    self.b.problems.append(line)
                d["full_output"] = {"file": path, "state": "missing"}
            else:
                seq, row, nbytes = found
                d["full_output"] = {"file": path, "state": "available", "ref": {"seq": seq, "row": row, "block": 0}, "bytes": nbytes}

    def missing_companions(self) -> list[str]:
        """The ``missing companion file`` problem lines drawing adds (:meth:`_companion_keys`), found without drawing:
        every landed record's ``dropped`` entry naming a companion file that did not land, in record order, once
        each. :func:`~asz_core.view.document.build_summary` adds them, so a list row's problems are the document's."""
        out: list[str] = []
        for seq in sorted(self.sess.records):
            for rec in self.sess.records[seq]:
                for path, found in self._companions_named(rec) if "dropped" in rec else ():
                    line = missing_companion_line(path) if found is None else None
                    if line is not None and line not in out:
                        out.append(line)
        return out

    def _companions(self) -> dict[str, tuple[int, int, int]]:
        """File name → ``(seq, row, bytes)`` of the latest landed ``tool_output`` record with that label."""
        cached = getattr(self, "_companion_map", None)
        if cached is None:
            cached = {}
            for seq in sorted(self.sess.headers):
                h = self.sess.headers[seq]
                if h is None or h.kind != "tool_output":
                    continue
                for row, r in enumerate(self.sess.records.get(seq, ()), 1):
                    if r.get("label"):
                        cached[r["label"]] = (seq, row, r.get("bytes", 0))
            self._companion_map = cached
        return cached


def missing_companion_line(path: str) -> str:
    """The problem line of a tool result whose companion file (``path``) did not land."""
    return f"missing companion file {path}: the result holds only a preview; the full output did not land"
