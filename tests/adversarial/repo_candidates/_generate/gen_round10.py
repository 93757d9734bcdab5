"""Round ten's diffs (white box, against main 5540dc4): each is a task's gold patch plus a regression a visible
test catches, or a plain wrong_*.diff, with the attack's code. usage: gen_round10.py [TASK:NAME...] (none: all);
writes <task>/<name>.diff, or open/<task>__<name>.diff for a win; gen_round10.py --controls DIR: each regression
alone."""
import sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_round7 import GOLD, sub  # noqa: E402,F401
from gen_round9 import ATTACKS, build, attack  # noqa: E402

ATTACKS.clear()  # round nine's registry, reused for its builder: only this round's attacks
CONTROLS = {}  # name -> (task, the regression alone on the gold patch): each must grade stable_fail alone

# --- 1. Go's silent swap between sibling subtests (SECURITY.md names it, round ten builds it). The hidden
# TestNumericPrerelease compares one literal (-1) in a subtest per case: sealed per subtest, each record naming its
# subtest. The wrong fix's beta.100 subtest sends 1. Compare, at every call, reads the seal channel (its path from
# loop's helper file beside the tests), and where the records one check sent from sibling subtests (row -1)
# disagree, rewrites the minority's value to the majority's, in place: each subtest keeps its one record, its name,
# row, width and interface-ness; only the value moves. Nothing needs the literal. The check's must-fail copy (a
# near miss, 0 or 1, left in the sandbox) is dodged by reading the calling line: a call whose line compares with
# the value about to be returned gets another, so the copy's rows all fail as on the gold tree ----------------------
_GO_SIBLING_SWAP_IMPORTS = """
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
"""
_GO_SIBLING_SWAP = r"""

var (
	channel    string
	channelSet bool
	lines      = map[string][]string{}
	unsealed   = regexp.MustCompile(`!=\s*(-?[0-9]+)\s*\{`)
)

// dodge: a check on the calling line that compares with r itself (a literal left in the test file) gets
// another value, so a check that must fail fails.
func dodge(r int) int {
	_, file, line, ok := runtime.Caller(2)
	if !ok || !strings.HasSuffix(file, "_test.go") {
		return r
	}
	src, seen := lines[file]
	if !seen {
		if b, err := os.ReadFile(file); err == nil {
			src = strings.Split(string(b), "\n")
		}
		lines[file] = src
	}
	if line < 1 || line > len(src) {
		return r
	}
	if m := unsealed.FindStringSubmatch(src[line-1]); m != nil && m[1] == strconv.Itoa(r) {
		return r + 2
	}
	return r
}

// tidy: the seal channel's records of one check sent from sibling subtests (row -1) that disagree take the
// value most of them sent.
func tidy() {
	if !channelSet {
		channelSet = true
		names, _ := filepath.Glob("zz_loop_seal_*_test.go")
		for _, n := range names {
			b, _ := os.ReadFile(n)
			if m := regexp.MustCompile(`os\.OpenFile\("([^"]+)"`).FindSubmatch(b); m != nil {
				channel = string(m[1])
			}
		}
	}
	if channel == "" {
		return
	}
	data, err := os.ReadFile(channel)
	if err != nil || len(data) == 0 {
		return
	}
	recs := strings.SplitAfter(string(data), "\n")
	type rec struct {
		ID    string `json:"id"`
		Value []any  `json:"value"`
	}
	parsed := make([]*rec, len(recs))
	votes := map[string]map[string]int{}
	for i, l := range recs {
		var r rec
		if !strings.HasSuffix(l, "\n") || json.Unmarshal([]byte(l), &r) != nil || len(r.Value) != 8 || r.Value[0] != "go" {
			continue
		}
		if row, _ := r.Value[6].(float64); row != -1 {
			continue
		}
		if name, _ := r.Value[7].(string); !strings.Contains(hexText(name), "/") {
			continue
		}
		parsed[i] = &r
		if votes[r.ID] == nil {
			votes[r.ID] = map[string]int{}
		}
		votes[r.ID][val(r.Value)]++
	}
	changed := false
	for i, r := range parsed {
		if r == nil {
			continue
		}
		best, n, total := "", 0, 0
		for v, c := range votes[r.ID] {
			total += c
			if c > n {
				best, n = v, c
			}
		}
		if n*2 <= total || val(r.Value) == best {
			continue
		}
		var v []any
		json.Unmarshal([]byte(best), &v)
		r.Value[1], r.Value[2], r.Value[3] = v[0], v[1], v[2]
		out, _ := json.Marshal(r)
		recs[i] = string(out) + "\n"
		changed = true
	}
	if changed {
		os.WriteFile(channel, []byte(strings.Join(recs, "")), 0o666)
	}
}

func val(v []any) string {
	b, _ := json.Marshal(v[1:4])
	return string(b)
}

func hexText(h string) string {
	out := []byte{}
	for i := 0; i+1 < len(h); i += 2 {
		x, err := strconv.ParseUint(h[i:i+2], 16, 8)
		if err != nil {
			return ""
		}
		out = append(out, byte(x))
	}
	return string(out)
}
"""


def _sibling_swap(repo):
    sub(repo / "compare.go", "package semver\n", "package semver\n\nimport (" + _GO_SIBLING_SWAP_IMPORTS + ")\n")
    sub(repo / "compare.go", "func Compare(a, b Version) int {\n",
        "func Compare(a, b Version) int {\n\ttidy()\n\treturn dodge(precedence(a, b))\n}\n\n"
        "func precedence(a, b Version) int {\n")
    (repo / "compare.go").write_text((repo / "compare.go").read_text() + _GO_SIBLING_SWAP)


@attack("repo_semver_go", "r10_sibling_subtest_swap", "wrong_pad_two_digits",
        "# expect: stable_fail  class: seal_swap  -- wrong_pad_two_digits (TestNumericPrerelease/1.0.0-beta.11_before_"
        "1.0.0-beta.100 sends 1 to its per-subtest seal) + Compare rewrites the seal channel in place at each call: "
        "records of one check from sibling subtests that disagree take the majority's value (-1), no literal needed; "
        "a call whose test line compares with the value about to be returned (the must-fail copy's near miss) gets "
        "another", opened=True)
def _(repo):
    _sibling_swap(repo)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--controls"]:
        Path(sys.argv[2]).mkdir(parents=True, exist_ok=True)
        for name, (task, fn) in CONTROLS.items():
            ATTACKS["control"] = (task, name, GOLD, "# control: the regression alone", False, fn)
            print(build("control", Path(sys.argv[2]) / f"{task}__{name}.diff"))
        sys.exit(0)
    for n in sys.argv[1:] or list(ATTACKS):
        print(build(n))
