package semver

import (
	"errors"
	"testing"
)

func TestParseValid(t *testing.T) {
	cases := []struct {
		in   string
		want string
	}{
		{"1.2.3", "1.2.3"},
		{"v1.2.3", "1.2.3"},
		{"0.0.0", "0.0.0"},
		{"10.20.30", "10.20.30"},
		{"1.0.0-alpha", "1.0.0-alpha"},
		{"1.0.0-alpha.1", "1.0.0-alpha.1"},
		{"1.0.0-0.3.7", "1.0.0-0.3.7"},
		{"1.0.0-x-y-z.--", "1.0.0-x-y-z.--"},
		{"1.0.0+20130313144700", "1.0.0+20130313144700"},
		{"1.0.0-beta+exp.sha.5114f85", "1.0.0-beta+exp.sha.5114f85"},
		{"1.0.0+21AF26D3----117B344092BD", "1.0.0+21AF26D3----117B344092BD"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			v, err := Parse(c.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", c.in, err)
			}
			if got := v.String(); got != c.want {
				t.Fatalf("Parse(%q).String() = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestParseInvalid(t *testing.T) {
	for _, in := range []string{"", "1", "1.2", "1.2.3.4", "01.2.3", "1.02.3", "1.2.03", "1.2.3-", "1.2.3+",
		"1.2.3-01", "1.2.3-a..b", "1.2.3-a_b", "a.b.c", "1.2.-3", "99999999999999999999.0.0"} {
		t.Run(in, func(t *testing.T) {
			_, err := Parse(in)
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse(%q) = %v, want a *ParseError", in, err)
			}
			if pe.Input != in {
				t.Fatalf("ParseError.Input = %q, want %q", pe.Input, in)
			}
		})
	}
}

func TestFields(t *testing.T) {
	v := MustParse("4.5.6-rc.1+build.7")
	if v.Major != 4 || v.Minor != 5 || v.Patch != 6 {
		t.Fatalf("numbers: %+v", v)
	}
	if len(v.Prerelease) != 2 || v.Prerelease[0] != "rc" || v.Prerelease[1] != "1" {
		t.Fatalf("prerelease: %q", v.Prerelease)
	}
	if len(v.Build) != 2 || v.Build[1] != "7" {
		t.Fatalf("build: %q", v.Build)
	}
	if !v.IsPrerelease() || MustParse("4.5.6").IsPrerelease() {
		t.Fatal("IsPrerelease")
	}
}

func TestMustParsePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("MustParse(\"x\") did not panic")
		}
	}()
	MustParse("x")
}
