package semver

import (
	"strings"
	"testing"
)

func parseAll(ss ...string) []Version {
	out := make([]Version, len(ss))
	for i, s := range ss {
		out[i] = MustParse(s)
	}
	return out
}

func joined(vs []Version) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.String()
	}
	return strings.Join(parts, " ")
}

func TestSort(t *testing.T) {
	vs := parseAll("1.0.0", "1.0.0-rc.1", "0.9.0", "1.0.0-alpha", "1.0.0-beta", "2.0.0", "1.0.0-alpha.1")
	Sort(vs)
	want := "0.9.0 1.0.0-alpha 1.0.0-alpha.1 1.0.0-beta 1.0.0-rc.1 1.0.0 2.0.0"
	if got := joined(vs); got != want {
		t.Fatalf("Sort = %s, want %s", got, want)
	}
}

func TestSortIsStable(t *testing.T) {
	vs := parseAll("1.0.0+b", "0.1.0", "1.0.0+a")
	Sort(vs)
	if got := joined(vs); got != "0.1.0 1.0.0+b 1.0.0+a" {
		t.Fatalf("Sort = %s", got)
	}
}

func TestLatest(t *testing.T) {
	vs := parseAll("1.2.0", "1.4.1", "2.0.0", "1.5.0-rc.1", "1.3.9")
	c, _ := ParseConstraint("^1.2.0")
	v, ok := Latest(vs, c)
	if !ok || v.String() != "1.4.1" {
		t.Fatalf("Latest = %v, %v", v, ok)
	}
	none, _ := ParseConstraint(">=3.0.0")
	if _, ok := Latest(vs, none); ok {
		t.Fatal("Latest found a version above every candidate")
	}
}

func TestNext(t *testing.T) {
	cases := []struct{ v, kind, want string }{
		{"1.2.3", BumpPatch, "1.2.4"},
		{"1.2.3", BumpMinor, "1.3.0"},
		{"1.2.3", BumpMajor, "2.0.0"},
		{"1.2.3-rc.1", BumpPatch, "1.2.3"},
		{"1.2.0-rc.1", BumpMinor, "1.2.0"},
		{"2.0.0-rc.1", BumpMajor, "2.0.0"},
		{"1.2.3+build", BumpPatch, "1.2.4"},
	}
	for _, c := range cases {
		t.Run(c.v+"_"+c.kind, func(t *testing.T) {
			got, ok := Next(MustParse(c.v), c.kind)
			if !ok || got.String() != c.want {
				t.Fatalf("Next(%s, %s) = %s, want %s", c.v, c.kind, got, c.want)
			}
		})
	}
	if _, ok := Next(MustParse("1.0.0"), "huge"); ok {
		t.Fatal("Next accepted an unknown bump kind")
	}
}
