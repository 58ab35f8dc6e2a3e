"""Beyond one machine: push landed files over OTLP, receive them into a root (origin-digest §8.4; issue 21).

- :mod:`.settings`: the ``export.otlp`` and ``storage.retention`` keys of ``asz.yaml`` (§8.2).
- :mod:`.wire`: one OTLP log record per landed file and round (resource, scope, attributes of §8.4).
- :mod:`.state`: ``push.state``, what was sent to which receiver (§8.4).
- :mod:`.transport`: gRPC and HTTP/protobuf senders and what an answer means.
- :mod:`.push`: one push pass (``asz push``).
- :mod:`.receive`: the receiver (``asz receive``), gRPC and HTTP on one port.
"""
