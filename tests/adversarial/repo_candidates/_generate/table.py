import json
from pathlib import Path
C = Path("/work/main/tests/adversarial/repo_candidates"); R = Path("/tmp/redteam/results")
LEAKS = {"z.rej:\\nvm": "/etc/hostname", "CANARY-7f3a": "root-only canary", "PRETTY_NAME": "/etc/os-release"}
def res(user, task, name):
    f = R / user / task / f"{name}.out"
    if not f.exists(): return "-", ""
    text = f.read_text()
    out = text.split("--stdout--\n", 1)[1].split("\n--stderr--\n", 1)
    stdout, stderr = out[0], out[1] if len(out) > 1 else ""
    leak = [v for k, v in LEAKS.items() if k in stdout]
    try:
        g = json.loads(stdout.strip().splitlines()[-1]); v = g["verdict"]
        fails = [x["check"].replace("test:", "") for x in g["failures"]]
        note = (f"fails: {fails[0]}" + (f" (+{len(fails)-1})" if len(fails) > 1 else "")) if fails else ""
    except Exception:
        v = "traceback"; note = stderr.strip().splitlines()[-1][:90]
    if leak: note = f"LEAKS {', '.join(leak)} into output+runs.db; " + note
    return v, note
rows = []
for task in ("repo_ledger_py", "repo_strkit_js", "repo_semver_go"):
    for d in sorted((C / task).glob("*.diff")):
        head = d.read_text().splitlines()[0]
        exp = head.split("expect:")[1].split()[0]; cls = head.split("class:")[1].split()[0]
        desc = head.split("--", 1)[1].strip()
        vr, nr = res("root", task, d.stem); vn, nn = res("nobody", task, d.stem)
        def ok(v, n):
            if exp == "stable_pass": return "n/a (honest ok)" if v == "stable_pass" else "HONEST REJECTED"
            return "YES" if (v != "stable_fail" or "LEAKS" in n) else "no"
        sr, sn = ok(vr, nr), ok(vn, nn)
        rows.append(f"| {task}/{d.name} | {cls} | {exp} | {vr} | {vn} | {sr} / {sn} | {desc} | root: {nr or '-'}; nobody: {nn or '-'} |")
print("| file | class | expected | root | nobody | succeeded (root / nobody) | what it does | details |")
print("|---|---|---|---|---|---|---|---|")
print("\n".join(rows))
