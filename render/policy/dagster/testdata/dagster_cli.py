"""The reference for codeloc's reading of a code server's command line.

Two modes:
  dagster_cli.py tables     prints, as JSON, the options of `dagster api grpc`
                            and `dagster code-server start` as click declares them;
  dagster_cli.py ARGS...    installed as `dagster` on PATH (a symlink): parses
                            its own argv and environment exactly as the real
                            `dagster` entry point does (click, auto_envvar_prefix
                            DAGSTER_CLI), without running the command, and
                            appends one JSON line to $CODELOC_CLIREF_OUT: the
                            params codeloc reads, or click's error, or the exit
                            of --help.
"""

import contextlib
import io
import json
import os
import sys

import click
from dagster._cli import ENV_PREFIX, create_dagster_cli

COMMANDS = (("api", "grpc"), ("code-server", "start"))
READ = ("port", "socket", "host", "location_name", "container_context", "container_image")


def kind(param):
    t = param.type
    if isinstance(t, click.types.IntParamType):
        return "int"
    if isinstance(t, click.types.BoolParamType):
        return "bool"
    if isinstance(t, click.Choice):
        return "choice:" + ",".join(t.choices)
    return ""


def tables():
    cli = create_dagster_cli()
    root = click.Context(cli, info_name="dagster", auto_envvar_prefix=ENV_PREFIX)
    out = []
    for words in COMMANDS:
        cmd, ctx = cli, root
        for w in words:
            cmd = cmd.get_command(ctx, w)
            ctx = click.Context(cmd, info_name=w, parent=ctx)
        options = []
        for p in cmd.get_params(ctx):
            options.append({
                "param": "help" if p.name == "_click_default_help" else p.name,
                "opts": list(p.opts) + list(p.secondary_opts),
                "flag": bool(getattr(p, "is_flag", False)),
                "env": p.envvar or "",
                "kind": kind(p),
            })
        out.append({"name": "dagster " + " ".join(words), "autoEnv": ctx.auto_envvar_prefix, "options": options})
    print(json.dumps(out))


def parse(argv):
    out = {"argv": argv}
    cli = create_dagster_cli()
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            ctx = cli.make_context("dagster", list(argv), auto_envvar_prefix=ENV_PREFIX)
            cmd = cli
            while isinstance(cmd, click.Group):
                name, cmd, rest = cmd.resolve_command(ctx, ctx._protected_args + ctx.args)
                ctx = cmd.make_context(name, rest, parent=ctx)
        out["command"] = ctx.command_path
        out["params"] = {k: (None if ctx.params.get(k) is None else str(ctx.params[k])) for k in READ}
    except click.exceptions.Exit as e:
        out["exit"] = e.exit_code
    except click.ClickException as e:
        out["error"] = e.format_message()
    with open(os.environ["CODELOC_CLIREF_OUT"], "a") as f:
        f.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    if sys.argv[1:] == ["tables"]:
        tables()
    else:
        parse(sys.argv[1:])
