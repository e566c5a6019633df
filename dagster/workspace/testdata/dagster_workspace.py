"""Dagster's own loading of a workspace.yaml, for pyref_test.go.

Reads JSON lines on stdin, {"id": ..., "text": "<workspace.yaml>"}, and
writes one JSON line per input on stdout, in order:

  {"id": ..., "ok": false, "error": "<Dagster's error, one line>"}
  {"id": ..., "ok": true, "locations": [{"name", "kind", "host", "port", "socket", "ssl"}]}

Each text is written to a file and loaded as the webserver and the daemon
load `-w workspace.yaml`: dagster/_core/workspace/load.py,
location_origins_from_yaml_paths (PyYAML with Dagster's loader, the
WORKSPACE_CONFIG_SCHEMA, then the origins and their names). Any exception
is Dagster refusing the file. Run with the virtualenv of .ci/dagster.sh.
"""

import json
import os
import sys
import tempfile

from dagster._core.remote_origin import GrpcServerCodeLocationOrigin
from dagster._core.workspace.load import location_origins_from_yaml_paths


def one_line(e):
    return " ".join(f"{type(e).__name__}: {e}".split())


def location(o):
    if isinstance(o, GrpcServerCodeLocationOrigin):
        return {
            "name": o.location_name,
            "kind": "grpc_server",
            "host": o.host,
            "port": o.port or 0,
            "socket": o.socket or "",
            "ssl": bool(o.use_ssl),
        }
    return {"name": o.location_name, "kind": type(o).__name__}


def main():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "workspace.yaml")
        for line in sys.stdin:
            req = json.loads(line)
            resp = {"id": req["id"]}
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(req["text"])
            try:
                resp["locations"] = [location(o) for o in location_origins_from_yaml_paths([path])]
                resp["ok"] = True
            except Exception as e:  # noqa: BLE001 - any refusal of Dagster's
                resp.update(ok=False, error=one_line(e))
            print(json.dumps(resp, sort_keys=True))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
