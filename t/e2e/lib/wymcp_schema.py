"""wymcp_schema.py - every response the e2e scripts see, checked against
the specification's schema.json of the revision its request spoke.

check_exchange(body, headers, resp) is called by wymcp_e2e.Client.send
for each HTTP exchange: the request's revision is its
params._meta["io.modelcontextprotocol/protocolVersion"] (2026-07-28), an
initialize's protocolVersion, or its MCP-Protocol-Version header
(2025-11-25); requests of other revisions (2025-06-18 and older, or no
version at all) are not checked.  A JSON body, or each event of an SSE
body, is validated as a whole message: a result against the method's
XResultResponse (2026-07-28) or its result definition (2025-11-25), the
tasks extension's CreateTaskResult and tasks/* results against
ext-tasks/schema.json, an error against JSONRPCErrorResponse, a
notification against ServerNotification, a request the server sends
(2025-11-25, on a held stream) against ServerRequest.  Every _meta key
in it must follow the key rules of basic/index.mdx, and a key under a
prefix reserved for MCP must be one the schemas define.

The specification is read from $WYMCP_SPEC_ROOT, else from
../shared/spec beside the source tree (as t/unit/check_shapes.c); when
it is absent, nothing is checked (noted once).  The validator is
python3-jsonschema (Debian's; runtests' deps layer installs it).
"""

import json
import os
import re

SRCDIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..",
                                      "..", ".."))
MODERN = "2026-07-28"
LEGACY = "2025-11-25"
REVS = (MODERN, LEGACY)

# The result of each method, by revision: a definition name.
RESULTS = {
    MODERN: {
        "server/discover": "DiscoverResultResponse",
        "tools/list": "ListToolsResultResponse",
        "tools/call": "CallToolResultResponse",
        "resources/list": "ListResourcesResultResponse",
        "resources/templates/list": "ListResourceTemplatesResultResponse",
        "resources/read": "ReadResourceResultResponse",
        "prompts/list": "ListPromptsResultResponse",
        "prompts/get": "GetPromptResultResponse",
        "completion/complete": "CompleteResultResponse",
        "subscriptions/listen": "SubscriptionsListenResultResponse",
    },
    LEGACY: {
        "initialize": "InitializeResult",
        "ping": "EmptyResult",
        "logging/setLevel": "EmptyResult",
        "resources/subscribe": "EmptyResult",
        "resources/unsubscribe": "EmptyResult",
        "tools/list": "ListToolsResult",
        "tools/call": "CallToolResult",
        "resources/list": "ListResourcesResult",
        "resources/templates/list": "ListResourceTemplatesResult",
        "resources/read": "ReadResourceResult",
        "prompts/list": "ListPromptsResult",
        "prompts/get": "GetPromptResult",
        "completion/complete": "CompleteResult",
        "tasks/get": "GetTaskResult",
        "tasks/list": "ListTasksResult",
        "tasks/cancel": "CancelTaskResult",
    },
}
# The tasks extension (ext-tasks/schema.json) on 2026-07-28.
TASK_RESULTS = {
    "tasks/get": "GetTaskResult",
    "tasks/update": "UpdateTaskResult",
    "tasks/cancel": "CancelTaskResult",
}

META_KEY = re.compile(
    r"^(?:[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
    r"(?:\.[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*/)?"
    r"(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$")


class Checker:
    def __init__(self):
        self.root = os.environ.get("WYMCP_SPEC_ROOT") or \
            os.path.join(SRCDIR, "..", "shared", "spec")
        self.ready = None	# None: not loaded; False: cannot check
        self.why = ""
        self.validators = {}
        self.checked = 0

    def load(self):
        if self.ready is not None:
            return self.ready
        self.ready = False
        paths = {r: os.path.join(self.root, r, "schema.json") for r in REVS}
        paths["tasks"] = os.path.join(self.root, "ext-tasks", "schema.json")
        if not all(os.path.exists(p) for p in paths.values()):
            self.why = "no specification under %s" % self.root
            return False
        import jsonschema	# python3-jsonschema: a missing one fails
        self.js = jsonschema
        self.schemas = {}
        self.reserved = set()
        for k, p in paths.items():
            with open(p) as f:
                text = f.read()
            self.schemas[k] = json.loads(text)
            self.reserved |= set(re.findall(
                r"io\.modelcontextprotocol/[A-Za-z0-9._-]*[A-Za-z0-9]", text))
        self.ready = True
        return True

    def validator(self, which, name):
        key = (which, name)
        v = self.validators.get(key)
        if v is None:
            s = self.schemas[which]
            if name not in s["$defs"]:
                return None
            schema = {"$schema": s.get("$schema"), "$defs": s["$defs"],
                      "$ref": "#/$defs/" + name}
            cls = self.js.validators.validator_for(schema)
            v = cls(schema)
            self.validators[key] = v
        return v

    def errors(self, which, name, inst):
        v = self.validator(which, name)
        if v is None:
            return ["no definition %s in %s" % (name, which)]
        out = []
        for e in v.iter_errors(inst):
            # The deepest reasons of an anyOf say more than the anyOf.
            best = self.js.exceptions.best_match([e])
            out.append("%s at /%s: %s" % (name, "/".join(
                str(p) for p in best.absolute_path), best.message[:200]))
            if len(out) >= 3:
                break
        return out


C = Checker()


def meta_problems(o, path="", out=None):
    """Every _meta key in `o': the key rules and the reserved prefixes."""
    out = [] if out is None else out
    if isinstance(o, dict):
        for k, v in o.items():
            if k == "_meta" and isinstance(v, dict):
                for mk in v:
                    if not META_KEY.match(mk) or mk == "":
                        out.append("_meta key %r at %s breaks the key "
                                   "rules" % (mk, path or "/"))
                        continue
                    pre = mk.split("/")[0].split(".") if "/" in mk else []
                    if len(pre) > 1 and pre[1] in ("modelcontextprotocol",
                                                   "mcp") \
                            and mk not in C.reserved:
                        out.append("_meta key %r at %s: reserved for MCP "
                                   "and in no schema" % (mk, path or "/"))
            meta_problems(v, path + "/" + k, out)
    elif isinstance(o, list):
        for i, v in enumerate(o):
            meta_problems(v, "%s/%d" % (path, i), out)
    return out


def revision(req, headers):
    """The revision a request spoke, or None (not checked)."""
    if not isinstance(req, dict):
        return None
    params = req.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    if isinstance(meta, dict) and \
            "io.modelcontextprotocol/protocolVersion" in meta:
        v = meta["io.modelcontextprotocol/protocolVersion"]
        return v if v == MODERN else None
    if req.get("method") == "initialize":
        v = params.get("protocolVersion") if isinstance(params, dict) \
            else None
        return LEGACY if v == LEGACY else None
    for k, v in headers:
        if k.lower() == "mcp-protocol-version":
            v = v.decode() if isinstance(v, bytes) else v
            return v if v in REVS else None
    return None


def messages(resp):
    """The JSON-RPC messages of a response: its JSON, or its SSE data."""
    ct = (resp.header("Content-Type") or "").split(";")[0].strip().lower()
    if ct == "application/json":
        return [resp.json] if resp.json is not None else []
    if ct != "text/event-stream":
        return []
    out = []
    text = resp.raw.decode("utf-8", "replace").replace("\r\n", "\n")
    for block in text.split("\n\n"):
        data = [ln[5:].lstrip(" ") if ln.startswith("data:") else None
                for ln in block.split("\n")]
        data = [d for d in data if d is not None]
        if data:
            try:
                out.append(json.loads("\n".join(data)))
            except ValueError:
                pass
    return out


def check_message(rev, req, msg):
    """The problems of one message answering (or sent during) req."""
    if not isinstance(msg, dict):
        return ["not a JSON object: %r" % (msg,)]
    p = meta_problems(msg)
    method = req.get("method") if isinstance(req, dict) else None
    if "method" in msg:
        name = "ServerNotification" if "id" not in msg else "ServerRequest"
        return p + C.errors(rev, name, msg)
    if "error" in msg:
        return p + C.errors(rev, "JSONRPCErrorResponse", msg)
    res = msg.get("result")
    rtype = res.get("resultType") if isinstance(res, dict) else None
    if rev == MODERN and (method in TASK_RESULTS or rtype == "task"):
        p += C.errors(rev, "JSONRPCResultResponse", msg)
        name = TASK_RESULTS.get(method, "CreateTaskResult")
        return p + C.errors("tasks", name, res)
    name = RESULTS[rev].get(method)
    if rev == MODERN:
        return p + C.errors(rev, name or "JSONRPCResultResponse", msg)
    p += C.errors(rev, "JSONRPCResultResponse", msg)
    if name is not None:
        if isinstance(res, dict) and "task" in res and \
                method == "tools/call":
            name = "CreateTaskResult"
        p += C.errors(rev, name, res)
    return p


def check_exchange(body, headers, resp):
    """The schema problems of one HTTP exchange (a list of strings), and
    the revision checked (None: not checked)."""
    if not C.load():
        return [], None
    try:
        req = json.loads(body) if body else None
    except (ValueError, UnicodeDecodeError):
        req = None
    rev = revision(req, list(headers or []))
    if rev is None:
        return [], None
    out = []
    for msg in messages(resp):
        out += check_message(rev, req, msg)
    C.checked += 1
    return out, rev
