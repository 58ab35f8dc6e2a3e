"""``asz view`` on a port already taken says what to do next (trial 47d F6: with ``asz server`` running it said only
``asz view: cannot listen on 127.0.0.1:8787: Address already in use``, exit 1): ``--port N`` to pick another, and
when an asz page answers ``/api/status`` there, which command serves which root at which address; when another
program holds the port, that an asz server or view may be listening. Real servers, real sockets."""

from __future__ import annotations

import socket

from view_server_helpers import Served, asz


def test_a_port_an_asz_view_serves_names_it(example_root, tmp_path):
    s = Served(["view", "--root", str(example_root)], tmp_path)
    try:
        p = asz("view", "--root", str(example_root), "--port", str(s.port), check=False)
    finally:
        s.stop()
    assert (p.returncode, p.stdout) == (1, "")
    assert p.stderr == (f"asz view: cannot listen on 127.0.0.1:{s.port}: Address already in use; asz view already serves "
                        f"{example_root} there: open http://127.0.0.1:{s.port}/, or give --port N to listen on another "
                        "port\n"), p.stderr


def test_a_port_another_program_holds_says_port(example_root):
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen(1)
        port = held.getsockname()[1]
        p = asz("view", "--root", str(example_root), "--port", str(port), check=False)
    assert (p.returncode, p.stdout) == (1, "")
    assert p.stderr == (f"asz view: cannot listen on 127.0.0.1:{port}: Address already in use; give --port N to listen "
                        "on another port (an asz server or asz view may already be listening there)\n"), p.stderr
