"""wymcp_observe - what the operators' layers share (t/e2e/e2e_audit.py,
e2e_ratelimit.py): wymcp-fcgi with 4 workers and the examples and echo
modules behind a private nginx that serves the shipped
deploy/nginx/wymcp.conf, a raw tools/call over HTTP, and their main():
a script of the official TypeScript client v2 (pinned by
e2e_sdk_listen.py) runs first, then the layer's sections read what it
printed.  Python 3 standard library only.
"""

import json
import os
import shutil
import subprocess

import wymcp_e2e
from wymcp_e2e import R, Client, enc, hlist, std_headers

SRCDIR = wymcp_e2e.SRCDIR
# A raw request's _meta (the client v2 sends its own).
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}}


class Harness(wymcp_e2e.Harness):
    """4 workers, the examples and echo modules, the options
    fcgi_args() gives, self.audit a path in the temporary directory,
    and the notes of write_note kept there too."""

    def __init__(self, builddir, keep=False):
        wymcp_e2e.Harness.__init__(self, builddir, keep)
        self.nworkers = 4
        self.tools = ["examples", "echo"]

    def fcgi_args(self):
        return []

    def start_fcgi(self):
        self.audit = os.path.join(self.tmp, "audit.log")
        os.environ["WYMCP_NOTES_DIR"] = self.tmp
        self.extra_args = self.fcgi_args()
        wymcp_e2e.Harness.start_fcgi(self)

    def deploy_conf(self, name="wymcp-deploy.conf"):
        """The shipped wymcp.conf, on this harness's socket, written as
        `name' in the temporary directory."""
        wymcp_e2e.write_deploy_conf(self.tmp, self.sock, name)


def tools_call(port, args, path="/mcp", name="echo", rid=1,
               meta_extra=None, headers=None):
    """POST a tools/call of `name' with `args' to `path'; the Resp."""
    meta = dict(META)
    meta.update(meta_extra or {})
    body = {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
            "params": {"name": name, "arguments": args, "_meta": meta}}
    h = hlist(std_headers("tools/call", name)) + list(headers or [])
    return Client(port).send("POST", path, enc(body), h)


def main(make, sections, script_name, script, provision):
    """The main() of such a layer: skip (77) without npm, else
    run_layer(make, ...) with a --cache option (the clients' directory,
    default _build/sdk-listen): provision(cache) gives node, the
    harness starts, `script' (written as `script_name') runs with the
    base URL of the harness's first port, and sections(h, out) judges,
    `out' being the JSON of its "RESULT " line ({} without one)."""
    if shutil.which("npm") is None:
        print("SKIP: npm is not installed")
        return 77

    def body(h):
        cache = wymcp_e2e.ARGS.cache
        node = provision(cache)
        with open(os.path.join(cache, script_name), "w") as f:
            f.write(script)
        h.paths()
        h.start()
        base = "http://127.0.0.1:%d" % h.port
        p = subprocess.run([node, script_name, base], cwd=cache,
                           stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, timeout=120)
        res = [ln for ln in p.stdout.splitlines()
               if ln.startswith("RESULT ")]
        out = json.loads(res[0][7:]) if res else {}
        if not res:
            R.note("client: " + (p.stdout + p.stderr)[-600:])
        sections(h, out)

    def options(ap):
        ap.add_argument("--cache", default=os.path.join(
            SRCDIR, "_build", "sdk-listen"))

    return wymcp_e2e.run_layer(make, body, options=options)
