# expect: stable_fail
# Answers the fork server's fuzzed batch (one request holding every input) itself: a reply per input that
# says "returned the input's own answer" with tags that are not values, one reply too many, extra fields;
# single calls (the named checks, the slow path) get the honest, wrong, identity.
import json
import os
import sys

worker = sys.modules.get("sandbox_worker")
if worker is not None:
    honest = worker.serve

    def serve(fn, rd, wr):
        for line in worker.lines(rd):
            req = json.loads(line)
            args = req["args"]
            if isinstance(args, dict) and "batch" in args:
                forged = [{"ok": {"t": 5}, "changed": [["x", "y"]], "after": 1} for _ in args["batch"]] + [{"ok": 1}]
                reply = {"id": req["id"], "batch": forged}
            elif args == {"final": 1}:
                reply = {"id": req["id"], "changed": []}
            else:
                reply = worker.call(fn, args)
                reply["id"] = req["id"]
            data = (json.dumps(reply) + "\n").encode()
            while data:
                data = data[os.write(wr, data):]

    worker.serve = serve


def decode_cyclic(s: str):
    return s
