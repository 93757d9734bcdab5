"""Round twenty-one's diffs (white box, against main c0f31b6: seal.records takes a channel line only in a helper's own
form, seal._framed). Round twenty's Go heap rewrite (gen_round20's code, by import) with a filler the framing check
does not refuse; each is a regression (the corpus's wrong_pad_two_digits is its own control) plus the attack's code,
built with round nine's registry and builder by import.
usage: gen_round21.py [TASK:NAME...] (none: all); writes <task>/<name>.diff, or open/<task>__<name>.diff for a win."""
import sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_round9 import ATTACKS, CONTROLS, build, attack  # noqa: E402
import gen_round20  # noqa: E402

ATTACKS.clear()  # round nine's registry, reused for its builder: only this round's
CONTROLS.clear()


# --- 1. Round twenty's filler, well-formed. seal._framed checks each channel line (no whitespace outside strings
# but one space after a separator) but not the record its pieces assemble into, and nothing bounds how many pieces
# one record has. The filler is again the pieces of ONE long record of the hidden loop check's seal, from a subtest
# that never ran (it fails only the ungraded parent), but now byte-for-byte a record the Go helper itself would
# write for a subtest with a ~2.3 MB name (its test name is hex-encoded without a cap): no whitespace at all in the assembled line, and each piece line in a
# helper's form, each exactly 2048 bytes (hex of at most PIECE bytes; the parity fixed by json.dumps' one space
# after a separator), two to a page, so the pipe's page boundaries are still line boundaries. -------------------
_OLD_FILLER = gen_round20._GO_REWRITE[gen_round20._GO_REWRITE.index("func r20Filler() [][]byte {"):
                                      gen_round20._GO_REWRITE.index("const r20Pattern")]
_NEW_FILLER = r"""func r20Filler() [][]byte {
	total := r20Writers * r20Pages * 2
	// each piece line: {"id":"<sid>",["part":]["r21",i,total],"hex":"<2c hex>"}\n, with s in 0..2 spaces after
	// separators (json.dumps' form), exactly 2048 bytes
	seps := []string{`{"id":"`, `",`, `"part":`, `["r21",`, `,`, `],`, `"hex":"`}
	over := func(i int) int {
		n := 0
		for _, s := range seps {
			n += len(s)
		}
		return n + len(r20Sid) + len(strconv.Itoa(i)) + len(strconv.Itoa(total)) + len(`"}`) + 1
	}
	chunks := make([]int, total)
	spaces := make([]int, total)
	sum := 0
	for i := range chunks {
		o := over(i)
		spaces[i] = (2048 - o) % 2
		chunks[i] = (2048 - o - spaces[i]) / 2
		sum += chunks[i]
	}
	head := `{"id":"` + r20Sid + `","value":["go","int","-1","int",false,64,-1,"`
	tail := `"]}` + "\n"
	if (sum-len(head)-len(tail))%2 != 0 { // the name's hex is even: one byte less in the first piece, two spaces more
		chunks[0]--
		spaces[0] += 2
		sum--
	}
	name := []byte("TestNumericPrerelease/r21")
	name = append(name, strings.Repeat("x", (sum-len(head)-len(tail))/2-len(name))...)
	whole := head + hex.EncodeToString(name) + tail
	out := make([][]byte, r20Writers)
	at := 0
	for w := range out {
		buf := make([]byte, 0, r20Pages*4096)
		for k := 0; k < 2*r20Pages; k++ {
			i := w*2*r20Pages + k
			sp := []string{"", "", ""}
			for j := 0; j < spaces[i]; j++ {
				sp[j] = " "
			}
			line := `{"id":"` + r20Sid + `",` + sp[0] + `"part":` + sp[1] + `["r21",` + sp[2] + strconv.Itoa(i) + `,` +
				strconv.Itoa(total) + `],"hex":"` + hex.EncodeToString([]byte(whole[at:at+chunks[i]])) + `"}` + "\n"
			at += chunks[i]
			if len(line) != 2048 {
				panic("r21: a piece line of " + strconv.Itoa(len(line)))
			}
			buf = append(buf, line...)
		}
		out[w] = buf
	}
	if at != len(whole) {
		panic("r21: the pieces do not add up")
	}
	return out
}

"""
_GO_WELLFORMED = gen_round20._GO_REWRITE.replace(_OLD_FILLER, _NEW_FILLER).replace('\t"fmt"\n', "", 1)  # only r20's filler used it
assert _GO_WELLFORMED != gen_round20._GO_REWRITE


@attack("repo_semver_go", "r21_rewrite_heap_wellformed_pieces", "wrong_pad_two_digits",
        "# expect: stable_fail  class: seal_swap  -- wrong_pad_two_digits + round twenty's heap rewrite (zz_heap.go) "
        "with a filler the framing check takes: the pieces (each a 2048-byte line in a helper's form) of one "
        "whitespace-free record of the hidden loop check's seal from a subtest that never ran (../ROUND21.md)", opened=True)
def _(repo):
    gen_round20.hooked(repo, _GO_WELLFORMED)


if __name__ == "__main__":
    for n in sys.argv[1:] or list(ATTACKS):
        print(build(n, Path("/tmp/r21") / (n.replace(":", "__") + ".diff") if n in CONTROLS else None))
