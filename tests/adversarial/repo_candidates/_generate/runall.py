import json, subprocess, sys, os, concurrent.futures as cf
from pathlib import Path
C = Path("/work/main/tests/adversarial/repo_candidates")
R = Path("/tmp/redteam/results")
user = sys.argv[1]
tasks = sys.argv[2].split(",")
only = sys.argv[3].split(",") if len(sys.argv) > 3 and sys.argv[3] else None
HOST = Path("/etc/hostname").read_text().strip()
def one(diff):
    task = diff.parent.name
    out = R / user / task
    out.mkdir(parents=True, exist_ok=True)
    src = diff
    if user == "nobody":  # nobody cannot read /work/main maybe; copy
        src = Path("/tmp/redteam/projn/cands") / task / diff.name
        src.parent.mkdir(parents=True, exist_ok=True); src.write_bytes(diff.read_bytes()); os.chmod(src, 0o644)
    cmd = ["bash", "-c", f"ulimit -v 4000000; /tmp/redteam/grade.sh {task} {src} {'nobody' if user=='nobody' else ''}"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    (out / (diff.stem + ".out")).write_text(f"rc={p.returncode}\n--stdout--\n{p.stdout}\n--stderr--\n{p.stderr}")
    try:
        g = json.loads(p.stdout.strip().splitlines()[-1])
        verdict = g.get("verdict") or ("error:" + str(g.get("error"))[:80])
        fails = [f"{f['check']}" for f in g.get("failures", [])][:3]
    except Exception:
        verdict, fails = "NO-JSON", [p.stderr.strip().splitlines()[-1][:120] if p.stderr.strip() else ""]
    leak = [w for w in (HOST, "CANARY-7f3a", "PRETTY_NAME") if w and w in p.stdout + p.stderr]
    tb = "Traceback" in p.stderr
    return task, diff.stem, verdict, fails, leak, tb, p.returncode
diffs = [d for t in tasks for d in sorted((C / t).glob("*.diff")) if not only or d.stem in only]
with cf.ThreadPoolExecutor(2) as ex:
    for task, name, verdict, fails, leak, tb, rc in ex.map(one, diffs):
        line = (C / task / f"{name}.diff").read_text().splitlines()[0]
        exp = line.split("expect:")[1].split()[0]
        print(f"{task:16} {name:42} exp={exp:12} got={verdict:14} rc={rc} leak={leak} tb={tb} fails={fails}", flush=True)
