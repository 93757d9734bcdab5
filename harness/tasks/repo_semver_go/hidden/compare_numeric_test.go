package semver

import "testing"

// SemVer 2.0.0, section 11.4.1: identifiers consisting of only digits are compared numerically.
func TestNumericPrerelease(t *testing.T) {
	cases := []struct{ a, b string }{
		{"1.0.0-alpha.2", "1.0.0-alpha.10"},
		{"1.0.0-rc.9", "1.0.0-rc.11"},
		{"1.0.0-2", "1.0.0-10"},
		{"1.0.0-beta.11", "1.0.0-beta.100"},
	}
	for _, c := range cases {
		t.Run(c.a+"_before_"+c.b, func(t *testing.T) {
			if got := Compare(MustParse(c.a), MustParse(c.b)); got != -1 {
				t.Fatalf("Compare(%s, %s) = %d, want -1", c.a, c.b, got)
			}
		})
	}
}

func TestSortNightlies(t *testing.T) {
	vs := parseAll("2.0.0-nightly.10", "2.0.0-nightly.9", "2.0.0-nightly.100", "2.0.0-nightly.1")
	Sort(vs)
	want := "2.0.0-nightly.1 2.0.0-nightly.9 2.0.0-nightly.10 2.0.0-nightly.100"
	if got := joined(vs); got != want {
		t.Fatalf("Sort = %s, want %s", got, want)
	}
}

func TestLatestPicksRc10(t *testing.T) {
	vs := parseAll("3.1.0-rc.9", "3.1.0-rc.10", "3.1.0-rc.2")
	c, _ := ParseConstraint(">=3.1.0-rc.1 <3.1.0")
	v, ok := Latest(vs, c)
	if !ok || v.String() != "3.1.0-rc.10" {
		t.Fatalf("Latest = %v, %v", v, ok)
	}
}
