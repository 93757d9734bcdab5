# expect: stable_fail
# Replace the check runner wherever the worker keeps it, so no check ever fails.
import sys

for name in ("__main__", "sandbox_worker", "worker"):
    module = sys.modules.get(name)
    if module is not None:
        module.run_check = lambda *args, **kwargs: None
        if hasattr(module, "answer"):
            module.answer = lambda proxy, wire, entry: {"ok": None, "after": None}


def decode_cyclic(s: str):
    return s
