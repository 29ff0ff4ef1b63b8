#!/usr/bin/python3
"""deploy - an exec tool in Python (wymcp-exec(5)) that asks two questions.

The program runs once per round, from the top, with the answers so far:
the work before a question must be safe to repeat (here: none), and the
write after the last answer must happen once per call, however often the
last round is replayed or retried.  The idempotency key, the same for
every round and replay of one call, makes it so: the first run that
creates DEPLOY_DIR/keys/<key> writes the log line; any other finds it.
"""
import json
import os
import sys

call = json.load(sys.stdin)
args = call["arguments"]
answers = call["answers"]
service = args["service"]


def ask(message, schema):
    print(json.dumps({"ask": {"message": message,
                              "requestedSchema": schema}}))
    sys.exit(0)


# Question 1 (elicit-1): which environment.
env = answers.get("elicit-1")
if env is None:
    ask("Deploy %s to which environment?" % service,
        {"type": "object",
         "properties": {"environment": {
             "type": "string", "enum": ["staging", "production"]}},
         "required": ["environment"]})
if env["action"] != "accept":
    print("Not deployed: no environment chosen.")
    sys.exit(0)
environment = env["content"].get("environment")
if environment not in ("staging", "production"):
    print("Not deployed: unknown environment %r." % environment)
    sys.exit(1)

# Question 2 (elicit-2): confirm.
ok = answers.get("elicit-2")
if ok is None:
    ask("Really deploy %s to %s?" % (service, environment),
        {"type": "object",
         "properties": {"confirm": {"type": "boolean"}},
         "required": ["confirm"]})
if ok["action"] != "accept" or not ok["content"].get("confirm"):
    print("Not deployed: not confirmed.")
    sys.exit(0)

# The write, once per call.
top = os.environ.get("DEPLOY_DIR", "/var/tmp/wymcp-deploy")
keys = os.path.join(top, "keys")
os.makedirs(keys, exist_ok=True)
key = call["idempotencyKey"]
try:
    fd = os.open(os.path.join(keys, key), os.O_CREAT | os.O_EXCL |
                 os.O_WRONLY, 0o644)
    os.close(fd)
    first = True
except FileExistsError:
    first = False
if first:
    with open(os.path.join(top, "deploy.log"), "a") as log:
        log.write("%s %s %s %s\n" % (key, service, environment,
                                     call.get("principal") or "-"))
print(json.dumps({"content": [{"type": "text", "text": "Deployed %s to %s%s."
                               % (service, environment,
                                  "" if first else " (already done)")}],
                  "structuredContent": {"service": service,
                                        "environment": environment,
                                        "first": first}}))
