"""Where a staged arrival stands among the others (:mod:`.inbox`'s waiting ancestry): its trace, what of its run
never came, and the waiting posts whose parent links form a cycle (trial 37b F2). Pure functions over arrivals
(``{"op", "id", "run", …}``) and the remembered runs."""

from __future__ import annotations

__all__ = ["in_cycles", "never_came", "trace_of"]


def never_came(a: dict, runs: dict) -> str:
    """What never came of the waiting arrival ``a`` landed with what is known (trial 28c F3): ``post`` for a patch of a
    run never posted, ``parent`` for a post whose parent run is not known, '' when that has come meanwhile."""
    if a["op"] != "post":
        return "post" if a["id"] not in runs else ""
    pid = a["run"].get("parent_run_id")
    return "parent" if isinstance(pid, str) and pid and pid not in runs else ""


def trace_of(a: dict, runs: dict) -> str:
    """The trace of arrival ``a``: its run's ``trace_id``, else the remembered run's; '' when neither is known."""
    t = a["run"].get("trace_id")
    if isinstance(t, str) and t:
        return t
    mem = runs.get(a.get("id"))
    return str(mem.get("t") or "") if isinstance(mem, dict) else ""


def in_cycles(todo: list[dict]) -> set[int]:
    """``id()`` of each waiting post of ``todo`` whose parent links, followed through the other waiting posts, come
    back to it (``A``'s parent ``B``, ``B``'s parent ``A``; a run its own parent): none of them can ever find its
    parent landed. Runs that hang below a cycle are not in it."""
    posts = {a["id"]: a for a in todo if a["op"] == "post"}
    done: dict[str, bool] = {}
    for start in posts:
        path: list[str] = []
        on: dict[str, int] = {}
        cur = start
        while cur in posts and cur not in done and cur not in on:
            on[cur] = len(path)
            path.append(cur)
            pid = posts[cur]["run"].get("parent_run_id")
            cur = pid if isinstance(pid, str) else ""
        loop = set(path[on[cur]:]) if cur in on else set()
        for x in path:
            done[x] = x in loop
    return {id(posts[x]) for x, yes in done.items() if yes}
