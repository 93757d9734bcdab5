package semver

import "testing"

func TestConstraintCheck(t *testing.T) {
	cases := []struct {
		c, v string
		want bool
	}{
		{">=1.2.0", "1.2.0", true},
		{">=1.2.0", "1.1.9", false},
		{">1.2.0 <2.0.0", "1.5.0", true},
		{">1.2.0 <2.0.0", "2.0.0", false},
		{"!=1.2.3", "1.2.3", false},
		{"1.2.3", "1.2.3", true},
		{"=1.2.3", "1.2.4", false},
		{"<=1.2.3", "1.2.3", true},
		{"^1.2.3", "1.9.9", true},
		{"^1.2.3", "2.0.0", false},
		{"^1.2.3", "1.2.2", false},
		{"^0.2.3", "0.2.9", true},
		{"^0.2.3", "0.3.0", false},
		{"^0.0.3", "0.0.4", false},
		{"~1.2.3", "1.2.9", true},
		{"~1.2.3", "1.3.0", false},
		{"^1.2.3", "2.0.0-rc.1", false},
		{">=1.2.3-beta.1", "1.2.3-beta.2", true},
		{">=1.2.3-beta.1", "1.2.4-beta.2", false},
		{">=1.0.0", "1.5.0-rc.1", false},
	}
	for _, c := range cases {
		t.Run(c.c+"_"+c.v, func(t *testing.T) {
			con, err := ParseConstraint(c.c)
			if err != nil {
				t.Fatal(err)
			}
			if got := con.Check(MustParse(c.v)); got != c.want {
				t.Fatalf("%q.Check(%s) = %v, want %v", c.c, c.v, got, c.want)
			}
		})
	}
}

func TestConstraintErrors(t *testing.T) {
	for _, s := range []string{"", "   ", ">=1.2", "^x", "~1.2.3.4", ">>1.0.0"} {
		if _, err := ParseConstraint(s); err == nil {
			t.Errorf("ParseConstraint(%q) accepted", s)
		}
	}
}

func TestConstraintString(t *testing.T) {
	c, err := ParseConstraint(">=1.0.0  <2.0.0")
	if err != nil || c.String() != ">=1.0.0  <2.0.0" {
		t.Fatalf("String() = %q, %v", c.String(), err)
	}
}
