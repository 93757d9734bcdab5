"""For every hostile diff that applies: apply it to a copy of repo/, then compare the fixed function it leaves in the
code under test with the one the task's plain `wrong_*` reference diff leaves (that one grades stable_fail)."""
import re, shutil, subprocess, tempfile
from pathlib import Path
C = Path("/work/main/tests/adversarial/repo_candidates"); B = Path("/tmp/attack-base/harness/tasks")
SPEC = {"repo_ledger_py": ("ledger/tax.py", r"def compute_tax.*?(?=\n\n\S|\Z)", "wrong_floor_half_up"),
        "repo_strkit_js": ("src/truncate.js", r"export function truncate\(.*?\n}\n", "wrong_ellipsis_in_units"),
        "repo_semver_go": ("compare.go", r"func compareIdentifier.*?\n}\n", "wrong_pad_two_digits")}
def applied(task, diff):
    tmp = Path(tempfile.mkdtemp()); shutil.copytree(B / task / "repo", tmp / "r")
    p = subprocess.run(["git", "apply", str(diff)], cwd=tmp / "r", capture_output=True, text=True)
    return (tmp / "r") if p.returncode == 0 else None
for task, (rel, pat, ref) in SPEC.items():
    refdir = applied(task, C / task / f"{ref}.diff")
    want = re.search(pat, (refdir / rel).read_text(), re.S).group(0)
    for d in sorted((C / task).glob("*.diff")):
        head = d.read_text().splitlines()[0]
        if "stable_pass" in head or d.stem == ref:
            continue
        r = applied(task, d)
        if r is None:
            print(f"{task:16} {d.stem:42} does not apply (host_read: rejected on purpose)"); continue
        got = re.search(pat, (r / rel).read_text(), re.S)
        same = got and got.group(0) == want
        extra = sorted(set(str(p.relative_to(r)) for p in r.rglob("*") if p.is_file()) -
                       set(str(p.relative_to(B / task / "repo")) for p in (B / task / "repo").rglob("*") if p.is_file()))
        print(f"{task:16} {d.stem:42} fix-part == {ref}: {bool(same)}  added files: {extra}")
