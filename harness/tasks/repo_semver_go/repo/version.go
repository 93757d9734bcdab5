// Package semver parses, orders and matches Semantic Versioning 2.0.0 versions.
package semver

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is one parsed version: MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD].
type Version struct {
	Major, Minor, Patch uint64
	Prerelease          []string // dot-separated identifiers, empty for a release
	Build               []string // build metadata: kept, never ordered
}

// ParseError says which input was refused and why.
type ParseError struct {
	Input  string
	Reason string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("semver: invalid version %q: %s", e.Input, e.Reason)
}

// Parse reads a version; a leading "v" is accepted ("v1.2.3"), nothing else is lenient.
func Parse(s string) (Version, error) {
	in := s
	s = strings.TrimPrefix(s, "v")
	var v Version
	if i := strings.IndexByte(s, '+'); i >= 0 {
		build, err := identifiers(in, s[i+1:], false)
		if err != nil {
			return Version{}, err
		}
		v.Build = build
		s = s[:i]
	}
	if i := strings.IndexByte(s, '-'); i >= 0 {
		pre, err := identifiers(in, s[i+1:], true)
		if err != nil {
			return Version{}, err
		}
		v.Prerelease = pre
		s = s[:i]
	}
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return Version{}, &ParseError{in, "want MAJOR.MINOR.PATCH"}
	}
	nums := [3]*uint64{&v.Major, &v.Minor, &v.Patch}
	for i, p := range parts {
		n, err := number(in, p)
		if err != nil {
			return Version{}, err
		}
		*nums[i] = n
	}
	return v, nil
}

// MustParse is Parse for literals in tests and tables; it panics on bad input.
func MustParse(s string) Version {
	v, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return v
}

func number(in, p string) (uint64, error) {
	if p == "" {
		return 0, &ParseError{in, "empty number"}
	}
	if len(p) > 1 && p[0] == '0' {
		return 0, &ParseError{in, "leading zero in " + p}
	}
	for _, c := range p {
		if c < '0' || c > '9' {
			return 0, &ParseError{in, "not a number: " + p}
		}
	}
	n, err := strconv.ParseUint(p, 10, 64)
	if err != nil {
		return 0, &ParseError{in, "number too large: " + p}
	}
	return n, nil
}

func identifiers(in, s string, pre bool) ([]string, error) {
	if s == "" {
		return nil, &ParseError{in, "empty identifier list"}
	}
	ids := strings.Split(s, ".")
	for _, id := range ids {
		if id == "" {
			return nil, &ParseError{in, "empty identifier"}
		}
		for _, c := range id {
			if !(c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
				return nil, &ParseError{in, "bad character in identifier " + id}
			}
		}
		if pre && isNumeric(id) && len(id) > 1 && id[0] == '0' {
			return nil, &ParseError{in, "leading zero in numeric identifier " + id}
		}
	}
	return ids, nil
}

func isNumeric(id string) bool {
	for _, c := range id {
		if c < '0' || c > '9' {
			return false
		}
	}
	return id != ""
}

// String prints the version in its canonical form (no "v").
func (v Version) String() string {
	s := fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
	if len(v.Prerelease) > 0 {
		s += "-" + strings.Join(v.Prerelease, ".")
	}
	if len(v.Build) > 0 {
		s += "+" + strings.Join(v.Build, ".")
	}
	return s
}

// IsPrerelease reports whether the version carries prerelease identifiers.
func (v Version) IsPrerelease() bool { return len(v.Prerelease) > 0 }
