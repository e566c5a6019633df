"""Dagster's own reading of container contexts, for pyref_test.go.

Reads JSON lines on stdin, {"id": ..., "text": "<the context's text>"}, and
writes one JSON line per input on stdout, in order:

  {"id": ..., "ok": false, "error": "<Dagster's error, one line>"}
  {"id": ..., "ok": true, "run": {<what the run pod gets from the context>}}

The text goes through what Dagster does with it: `dagster api grpc` and
`dagster code-server start` json.loads the --container-context
(dagster/_cli/api.py, code_server.py); K8sRunLauncher reads it with
K8sContainerContext.create_for_run -> create_from_config
(dagster_k8s/container_context.py) and builds the run's Job with
construct_dagster_k8s_job (dagster_k8s/job.py). Any exception on the way is
Dagster refusing the context (the run never launches).

The effective values are read from the Job Dagster builds, in the API's
field names, with what the run launcher itself adds (the job_config below:
DAGSTER_HOME, its labels) left out, so that they are the context's alone.
Run with the virtualenv of .ci/dagster.sh.
"""

import json
import sys
import traceback

import kubernetes.client
from dagster_k8s.container_context import K8sContainerContext
from dagster_k8s.job import DagsterK8sJobConfig, construct_dagster_k8s_job

API = kubernetes.client.ApiClient()

# The launcher's own additions, left out of the effective values.
LAUNCHER_ENV = {"DAGSTER_HOME"}


def one_line(e):
    s = f"{type(e).__name__}: {e}"
    return " ".join(s.split())


def names(items, key="name"):
    return sorted({i.get(key) for i in items or [] if isinstance(i, dict) and i.get(key)})


def effective(job):
    spec = job["spec"]["template"]["spec"]
    meta = job["spec"]["template"].get("metadata") or {}
    c = spec["containers"][0]
    env_from = c.get("envFrom") or []
    labels = dict(meta.get("labels") or {})
    for k in list(labels):
        if k.startswith("app.kubernetes.io/"):
            del labels[k]
    job_labels = {
        k: v
        for k, v in ((job.get("metadata") or {}).get("labels") or {}).items()
        if not k.startswith("app.kubernetes.io/")
    }
    labels.update(job_labels)
    env = [e for e in c.get("env") or [] if e.get("name") not in LAUNCHER_ENV]
    return {
        "service_account": spec.get("serviceAccountName") or "",
        "pull_secrets": names(spec.get("imagePullSecrets")),
        "env_secrets": sorted({e["secretRef"]["name"] for e in env_from if e.get("secretRef")}),
        "env_config_maps": sorted(
            {e["configMapRef"]["name"] for e in env_from if e.get("configMapRef")}
        ),
        "env": sorted(
            json.dumps(e, sort_keys=True) for e in env if e.get("valueFrom") is not None
        ),
        "env_names": sorted({e.get("name") or "" for e in env}),
        "volumes": sorted(json.dumps(v, sort_keys=True) for v in spec.get("volumes") or []),
        "volume_mounts": sorted(
            json.dumps(m, sort_keys=True) for m in c.get("volumeMounts") or []
        ),
        "resources": c.get("resources") or {},
        "security_context": c.get("securityContext") or {},
        "labels": labels,
        "scheduler_name": spec.get("schedulerName") or "",
    }


def read(text):
    # dagster/_cli/api.py: json.loads(container_context)
    config = json.loads(text)
    ctx = K8sContainerContext.create_from_config(config)
    job = construct_dagster_k8s_job(
        job_config=DagsterK8sJobConfig(job_image="image:tag", dagster_home="/opt/dagster/dagster_home"),
        args=["dagster", "api", "execute_run"],
        job_name="dagster-run-pyref",
        user_defined_k8s_config=ctx.run_k8s_config,
    )
    out = effective(API.sanitize_for_serialization(job))
    out["namespace"] = ctx.namespace or ""
    return out


def main():
    for line in sys.stdin:
        req = json.loads(line)
        resp = {"id": req["id"]}
        try:
            resp["run"] = read(req["text"])
            resp["ok"] = True
        except RecursionError as e:  # deep nesting: the JSON decoder's limit
            resp.update(ok=False, error=one_line(e))
        except Exception as e:  # noqa: BLE001 - any refusal of Dagster's
            resp.update(ok=False, error=one_line(e))
            if req.get("trace"):
                resp["trace"] = traceback.format_exc()
        print(json.dumps(resp, sort_keys=True), flush=False)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
