"""Round ten's diffs (white box, against main 5540dc4): the corpus's wrong_pad_two_digits.diff (its own control:
stable_fail alone) with the attack's code. usage: gen_round10.py [TASK:NAME...] (none: all); writes
<task>/<name>.diff, or open/<task>__<name>.diff for a win."""
import sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_round7 import sub  # noqa: E402
from gen_round9 import ATTACKS, build, attack  # noqa: E402

ATTACKS.clear()  # round nine's registry, reused for its builder: only this round's attacks

# --- 1. Go's silent swap between sibling subtests (SECURITY.md names it, round ten builds it). The hidden
# TestNumericPrerelease compares one literal (-1) in a subtest per case: sealed per subtest, each record naming its
# subtest. The wrong fix's beta.100 subtest sends 1. Compare, at every call, reads the seal channel (its path from
# loop's helper file beside the tests), and where the records one check sent from sibling subtests (row -1)
# disagree, rewrites the minority's value to the majority's, in place: each subtest keeps its one record, its name,
# row, width and interface-ness; only the value moves. Nothing needs the literal, and no tripwire is touched: a
# check sealed per subtest gets no must-fail copy (6 of 6 grades at --k 1 with no copy in sight) --------------------
_GO_SIBLING_SWAP_IMPORTS = """
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
"""
_GO_SIBLING_SWAP = r"""

const swapMode = "value"

var appended = map[string]bool{}

var (
	channel    string
	channelSet bool
)

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
		name, _ := r.Value[7].(string)
		switch swapMode {
		case "value": // the record's value becomes its siblings'
			r.Value[1], r.Value[2], r.Value[3] = v[0], v[1], v[2]
		case "append": // the record stays; a sibling's value is appended under its name, once
			if appended[r.ID+name] {
				continue
			}
			appended[r.ID+name] = true
			c := *r
			c.Value = append([]any{}, r.Value...)
			c.Value[1], c.Value[2], c.Value[3] = v[0], v[1], v[2]
			out, _ := json.Marshal(c)
			recs = append(recs, string(out)+"\n")
			changed = true
			continue
		case "parent": // the wrong record is moved to the parent test
			r.Value[7] = hex.EncodeToString([]byte(strings.SplitN(hexText(name), "/", 2)[0]))
		}
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


def _sibling_swap(repo, mode="value"):
    sub(repo / "compare.go", "package semver\n", "package semver\n\nimport (" + _GO_SIBLING_SWAP_IMPORTS + ")\n")
    sub(repo / "compare.go", "func Compare(a, b Version) int {\n",
        "func Compare(a, b Version) int {\n\ttidy()\n\treturn precedence(a, b)\n}\n\n"
        "func precedence(a, b Version) int {\n")
    (repo / "compare.go").write_text((repo / "compare.go").read_text() + _GO_SIBLING_SWAP.replace(
        'const swapMode = "value"', f'const swapMode = "{mode}"'))


@attack("repo_semver_go", "r10_sibling_subtest_swap", "wrong_pad_two_digits",
        "# expect: stable_fail  class: seal_swap  -- wrong_pad_two_digits (TestNumericPrerelease/1.0.0-beta.11_before_"
        "1.0.0-beta.100 sends 1 to its per-subtest seal) + Compare rewrites the seal channel in place at each call: "
        "records of one check from sibling subtests that disagree take the majority's value (-1), no literal needed"
        " (round ten's win; closed by issue 41's FIFO channel: the file it reads and rewrites is gone, the FIFO at /loopchannel cannot be opened for reading in the sandbox, so the helper's own record (1) reaches loop)")
def _(repo):
    _sibling_swap(repo)


@attack("repo_semver_go", "r10_sibling_value_appended", "wrong_pad_two_digits",
        "# expect: stable_fail  class: seal_swap  -- r10_sibling_subtest_swap's forger without the in-place rewrite: "
        "the wrong subtest's own record (1) stays and a copy of a right sibling's value (-1), named as the wrong "
        "subtest, is appended once (the helper's own record of every subtest is sent too)")
def _(repo):
    _sibling_swap(repo, "append")


@attack("repo_semver_go", "r10_wrong_record_moved_to_parent", "wrong_pad_two_digits",
        "# expect: stable_fail  class: seal_swap  -- r10_sibling_subtest_swap's forger moving the wrong subtest's "
        "record to its parent test (the name rewritten to TestNumericPrerelease in place): the subtest then sent "
        "nothing, and the parent's record comes from no slot the gold run had")
def _(repo):
    _sibling_swap(repo, "parent")


if __name__ == "__main__":
    for n in sys.argv[1:] or list(ATTACKS):
        print(build(n))
