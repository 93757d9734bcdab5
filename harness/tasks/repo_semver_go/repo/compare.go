package semver

// Compare orders two versions by precedence (SemVer 2.0.0, section 11): -1, 0 or +1.
// Build metadata never takes part.
func Compare(a, b Version) int {
	if c := cmpUint(a.Major, b.Major); c != 0 {
		return c
	}
	if c := cmpUint(a.Minor, b.Minor); c != 0 {
		return c
	}
	if c := cmpUint(a.Patch, b.Patch); c != 0 {
		return c
	}
	return comparePrerelease(a.Prerelease, b.Prerelease)
}

// Less is Compare(a, b) < 0, for sort.Slice and friends.
func Less(a, b Version) bool { return Compare(a, b) < 0 }

// Equal reports equal precedence (so "1.0.0+a" equals "1.0.0+b").
func Equal(a, b Version) bool { return Compare(a, b) == 0 }

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// A release outranks its prereleases; otherwise identifiers are compared left to right and a
// longer list wins when all shared identifiers are equal.
func comparePrerelease(a, b []string) int {
	switch {
	case len(a) == 0 && len(b) == 0:
		return 0
	case len(a) == 0:
		return 1
	case len(b) == 0:
		return -1
	}
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := compareIdentifier(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmpUint(uint64(len(a)), uint64(len(b)))
}

// Numeric identifiers sort below alphanumeric ones; two alphanumeric ones compare in ASCII order.
func compareIdentifier(a, b string) int {
	an, bn := isNumeric(a), isNumeric(b)
	switch {
	case an && !bn:
		return -1
	case !an && bn:
		return 1
	}
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
