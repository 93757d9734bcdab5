package semver

import "sort"

// Sort orders versions ascending by precedence, keeping the input order of equal ones.
func Sort(vs []Version) {
	sort.SliceStable(vs, func(i, j int) bool { return Less(vs[i], vs[j]) })
}

// Latest returns the highest version that satisfies c (prereleases only where c allows them).
func Latest(vs []Version, c Constraint) (Version, bool) {
	var best Version
	found := false
	for _, v := range vs {
		if c.Check(v) && (!found || Less(best, v)) {
			best, found = v, true
		}
	}
	return best, found
}

// Bump kinds for Next.
const (
	BumpMajor = "major"
	BumpMinor = "minor"
	BumpPatch = "patch"
)

// Next returns the version after v for a bump kind; a prerelease of the target releases as-is
// ("1.2.0-rc.1" bumped minor is "1.2.0"), build metadata is dropped.
func Next(v Version, kind string) (Version, bool) {
	switch kind {
	case BumpMajor:
		if v.IsPrerelease() && v.Minor == 0 && v.Patch == 0 {
			return Version{Major: v.Major}, true
		}
		return Version{Major: v.Major + 1}, true
	case BumpMinor:
		if v.IsPrerelease() && v.Patch == 0 {
			return Version{Major: v.Major, Minor: v.Minor}, true
		}
		return Version{Major: v.Major, Minor: v.Minor + 1}, true
	case BumpPatch:
		if v.IsPrerelease() {
			return Version{Major: v.Major, Minor: v.Minor, Patch: v.Patch}, true
		}
		return Version{Major: v.Major, Minor: v.Minor, Patch: v.Patch + 1}, true
	}
	return Version{}, false
}
