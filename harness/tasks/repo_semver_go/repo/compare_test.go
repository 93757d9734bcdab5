package semver

import "testing"

func TestCompare(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"1.0.0", "1.0.0", 0},
		{"1.0.0", "2.0.0", -1},
		{"2.0.0", "2.1.0", -1},
		{"2.1.0", "2.1.1", -1},
		{"10.0.0", "9.0.0", 1},
		{"1.10.0", "1.9.0", 1},
		{"1.0.0-alpha", "1.0.0", -1},
		{"1.0.0-alpha", "1.0.0-alpha.1", -1},
		{"1.0.0-alpha.1", "1.0.0-alpha.beta", -1},
		{"1.0.0-alpha.beta", "1.0.0-beta", -1},
		{"1.0.0-beta", "1.0.0-beta.2", -1},
		{"1.0.0-rc.1", "1.0.0", -1},
		{"1.0.0-1", "1.0.0-a", -1},
		{"1.0.0-B", "1.0.0-a", -1},
		{"1.0.0+a", "1.0.0+b", 0},
		{"1.0.0-rc.1+x", "1.0.0-rc.1+y", 0},
	}
	for _, c := range cases {
		t.Run(c.a+"_vs_"+c.b, func(t *testing.T) {
			a, b := MustParse(c.a), MustParse(c.b)
			if got := Compare(a, b); got != c.want {
				t.Fatalf("Compare(%s, %s) = %d, want %d", c.a, c.b, got, c.want)
			}
			if got := Compare(b, a); got != -c.want {
				t.Fatalf("Compare(%s, %s) = %d, want %d (antisymmetry)", c.b, c.a, got, -c.want)
			}
		})
	}
}

func TestLessAndEqual(t *testing.T) {
	if !Less(MustParse("1.2.3"), MustParse("1.2.4")) || Less(MustParse("1.2.4"), MustParse("1.2.3")) {
		t.Fatal("Less")
	}
	if !Equal(MustParse("1.2.3+a"), MustParse("1.2.3")) || Equal(MustParse("1.2.3-a"), MustParse("1.2.3")) {
		t.Fatal("Equal")
	}
}
