package semver

import (
	"fmt"
	"strings"
)

// Constraint is a set of comparators that must all hold ("and"), e.g. ">=1.2.0 <2.0.0".
// "^1.2.3" and "~1.2.3" expand to ranges the npm way.
type Constraint struct {
	raw   string
	terms []term
}

type term struct {
	op string // one of = != > >= < <=
	v  Version
}

// ParseConstraint reads space-separated comparators; "^" and "~" ranges expand to two of them.
func ParseConstraint(s string) (Constraint, error) {
	c := Constraint{raw: s}
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return Constraint{}, fmt.Errorf("semver: empty constraint")
	}
	for _, f := range fields {
		terms, err := parseTerm(f)
		if err != nil {
			return Constraint{}, fmt.Errorf("semver: constraint %q: %w", s, err)
		}
		c.terms = append(c.terms, terms...)
	}
	return c, nil
}

func parseTerm(f string) ([]term, error) {
	switch {
	case strings.HasPrefix(f, "^"):
		v, err := Parse(f[1:])
		if err != nil {
			return nil, err
		}
		return []term{{">=", v}, {"<", caretCeiling(v)}}, nil
	case strings.HasPrefix(f, "~"):
		v, err := Parse(f[1:])
		if err != nil {
			return nil, err
		}
		return []term{{">=", v}, {"<", Version{Major: v.Major, Minor: v.Minor + 1, Prerelease: []string{"0"}}}}, nil
	}
	for _, op := range []string{">=", "<=", "!=", ">", "<", "="} {
		if strings.HasPrefix(f, op) {
			v, err := Parse(f[len(op):])
			if err != nil {
				return nil, err
			}
			return []term{{op, v}}, nil
		}
	}
	v, err := Parse(f)
	if err != nil {
		return nil, err
	}
	return []term{{"=", v}}, nil
}

// The first version a caret range excludes: the next change of the leftmost non-zero part.
func caretCeiling(v Version) Version {
	switch {
	case v.Major > 0:
		return Version{Major: v.Major + 1, Prerelease: []string{"0"}}
	case v.Minor > 0:
		return Version{Minor: v.Minor + 1, Prerelease: []string{"0"}}
	}
	return Version{Patch: v.Patch + 1, Prerelease: []string{"0"}}
}

// Check reports whether v satisfies every comparator. A prerelease satisfies a constraint only if
// some comparator names a prerelease of the same MAJOR.MINOR.PATCH (npm's rule).
func (c Constraint) Check(v Version) bool {
	for _, t := range c.terms {
		if !t.holds(v) {
			return false
		}
	}
	if v.IsPrerelease() {
		for _, t := range c.terms {
			if t.v.IsPrerelease() && !isCeiling(t) && sameTriple(t.v, v) {
				return true
			}
		}
		return false
	}
	return true
}

// String gives the constraint as written.
func (c Constraint) String() string { return c.raw }

func (t term) holds(v Version) bool {
	c := Compare(v, t.v)
	switch t.op {
	case "=":
		return c == 0
	case "!=":
		return c != 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	}
	return false
}

// The "-0" ceilings that ^ and ~ add are bounds, not a request for prereleases.
func isCeiling(t term) bool {
	return t.op == "<" && len(t.v.Prerelease) == 1 && t.v.Prerelease[0] == "0"
}

func sameTriple(a, b Version) bool {
	return a.Major == b.Major && a.Minor == b.Minor && a.Patch == b.Patch
}
