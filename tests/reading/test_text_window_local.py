"""The text form's header names the auditor's day in the zone asked (trial 35b F6: ``window:`` in UTC only, so a
model asked about an Auckland day saw the day before's dates): ``window_local: ZONE, START, END`` after ``window``
(render 6). A copy made before (render 5, no such line) still checks with ``asz verify --export``; the line changed
in a render-6 copy is a problem.

Real input: the corpus conversation b25638d7 collected; the expected local ends computed here with zoneinfo."""

from __future__ import annotations

from asz_core.reading.export_render import RENDER  # the render this asz writes (pinned by rule)

import hashlib
import json
from datetime import datetime
from zoneinfo import ZoneInfo

from reading_helpers import asz

SID = "b25638d7-b104-4f06-a797-70ac33d069ed"


def _export(corpus_root, out, day: str, tz: str) -> list[str]:
    asz("export", SID, "--since", day, "--until", day, "--tz", tz, "--format", "text", "--root", str(corpus_root),
        "--out", str(out))
    return out.read_text().splitlines()


def _rewritten(path, data: bytes, render: int | None = None):
    """``data`` written over the copy at ``path``, its manifest written again for it (``render`` set when given)."""
    path.write_bytes(data)
    man = path.with_name(path.name + ".manifest.json")
    body = json.loads(man.read_text())
    from asz_core.reading.export_manifest import line_digests
    body["export"] = {**body["export"], "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest(), "lines": line_digests(data)}
    if render is not None:
        body["render"] = render
    man.write_text(json.dumps(body))


def test_the_window_in_the_zone_asked(corpus_root, tmp_path):
    # its records 2025-09-29T17:07Z-17:09Z: the next morning in Auckland (NZDT, +13:00 from 2025-09-28)
    for day, tz in (("2025-09-30", "Pacific/Auckland"), ("2025-09-29", "America/Los_Angeles"), ("2025-09-29", "UTC")):
        lines = _export(corpus_root, tmp_path / f"{tz.replace('/', '_')}.txt", day, tz)
        zone = ZoneInfo(tz)
        start = datetime.fromisoformat(day).replace(tzinfo=zone)
        end = datetime.fromisoformat(f"{day}T23:59:59.999").replace(tzinfo=zone)
        utc = [x.astimezone(ZoneInfo("UTC")).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z" for x in (start, end)]
        at = lines.index(f"window: {utc[0]}, {utc[1]}")
        assert lines[at + 1] == (f"window_local: {tz}, {start.isoformat(timespec='milliseconds')}, "
                                 f"{end.isoformat(timespec='milliseconds')}"), lines[at + 1]
    assert "window_local: Pacific/Auckland, 2025-09-30T00:00:00.000+13:00, 2025-09-30T23:59:59.999+13:00" in \
        (tmp_path / "Pacific_Auckland.txt").read_text()


def test_a_render_5_copy_still_checks_and_a_changed_zone_does_not(corpus_root, tmp_path):
    from asz_core.reading.export_render import drawing

    copy = tmp_path / "a.txt"
    with drawing(10):  # render 11 added the audit form's errors (b25638d7 has a failed call): drawn before them
        lines = _export(corpus_root, copy, "2025-09-30", "Pacific/Auckland")
    assert json.loads((tmp_path / "a.txt.manifest.json").read_text())["render"] == RENDER
    old = "".join(x + "\n" for x in lines if not x.startswith("window_local: ")).encode()
    _rewritten(copy, old, render=5)  # as render 5 wrote it: no window_local line
    p = asz("verify", "--export", str(copy), "--root", str(corpus_root), check=False)
    assert p.returncode == 0, p.stdout
    lines = _export(corpus_root, copy, "2025-09-30", "Pacific/Auckland")
    forged = "\n".join(x.replace("+13:00", "+12:00") if x.startswith("window_local: ") else x for x in lines) + "\n"
    _rewritten(copy, forged.encode())
    n = next(k for k, x in enumerate(lines, 1) if x.startswith("window_local: "))
    bad = asz("verify", "--export", str(copy), "--root", str(corpus_root), check=False)
    assert bad.returncode == 1 and f"a.txt: line {n} column" in bad.stdout, bad.stdout
