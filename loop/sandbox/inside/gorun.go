// loop's runner for Go test binaries (`go test -exec`): it runs each test binary under a Landlock ruleset that
// the binary and everything it starts inherit, before any of the candidate's code runs. Red team round fifteen:
// a test binary's init() wrote a Go file the screen refuses (or edited a copy of a hidden test), ran the
// sandbox's own `go test -c` and exec'd the result, so the tests that ran were not the ones go test compiled.
// Under this ruleset a test binary can execute itself and the system's programs, but nothing writable (a
// compiler copied to /tmp), and it cannot even read the Go toolchain (round sixteen ran a copy through the
// dynamic loader, which maps what execve would refuse); it can write /tmp, not the repository (another
// package's sources, compiled after it started) nor /dev/shm, where loop keeps Go's build cache and go test's
// own binaries.
//
// Usage (by go test): gorun BINARY ARGS... ; standard library only, built by loop with the sandbox's Go.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unsafe"
)

const (
	sysCreateRuleset = 444
	sysAddRule       = 445
	sysRestrictSelf  = 446
	rulePathBeneath  = 1
	versionFlag      = 1
	oPath            = 0x200000 // O_PATH (linux; the syscall package lacks it)

	accessExecute  = 1 << 0
	accessReadFile = 1 << 2
	accessReadDir  = 1 << 3
	// write_file, remove_dir, remove_file, make_char, make_dir, make_reg, make_sock, make_fifo, make_block, make_sym
	accessWrite    = 1<<1 | 1<<4 | 1<<5 | 1<<6 | 1<<7 | 1<<8 | 1<<9 | 1<<10 | 1<<11 | 1<<12
	accessRefer    = 1 << 13 // ABI 2
	accessTruncate = 1 << 14 // ABI 3
)

var goroot string // set by loop's build (-ldflags -X main.goroot=...): the GOROOT of the Go that runs the tests

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "loop gorun: "+format+"\n", args...)
	os.Exit(125)
}

func addRule(ruleset uintptr, path string, access uint64) {
	fd, err := syscall.Open(path, oPath|syscall.O_CLOEXEC, 0)
	if err != nil {
		return // absent here: nothing to allow
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) == nil && st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		access &= accessExecute | 1<<1 | accessReadFile | accessTruncate // a file takes the rights of a file only
	}
	var attr [12]byte // struct landlock_path_beneath_attr { u64 allowed_access; s32 parent_fd; } (packed)
	*(*uint64)(unsafe.Pointer(&attr[0])) = access
	*(*int32)(unsafe.Pointer(&attr[8])) = int32(fd)
	if _, _, e := syscall.Syscall6(sysAddRule, ruleset, rulePathBeneath, uintptr(unsafe.Pointer(&attr[0])), 0, 0, 0); e != 0 {
		fail("landlock_add_rule %s: %v", path, e)
	}
}

// allowExcept allows `access` beneath `dir`, except beneath each of `denied` (resolved paths): a folder holding
// one is allowed child by child instead.
func allowExcept(ruleset uintptr, dir string, access uint64, denied []string) {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		allowResolved(ruleset, real, access, denied)
	}
}

func allowResolved(ruleset uintptr, real string, access uint64, denied []string) {
	for _, d := range denied {
		if real == d || strings.HasPrefix(real, d+"/") {
			return
		}
	}
	for _, d := range denied {
		if strings.HasPrefix(d, strings.TrimSuffix(real, "/")+"/") { // ("/" holds every path)
			entries, err := os.ReadDir(real)
			if err != nil {
				return
			}
			for _, e := range entries {
				if e.Type()&os.ModeSymlink != 0 {
					allowExcept(ruleset, filepath.Join(real, e.Name()), access, denied)
				} else { // its path is resolved already: no lstat of every component again
					allowResolved(ruleset, filepath.Join(real, e.Name()), access, denied)
				}
			}
			return
		}
	}
	addRule(ruleset, real, access)
}

// toolchainFolder is GOROOT, resolved: its programs (go, compile, link) and compiled packages. Its sources may stay
// readable where a distribution keeps them elsewhere (Debian's /usr/share/go-1.19/src): without a compiler they
// build nothing, and allowing /usr/share whole keeps the ruleset small.
func toolchainFolder() string {
	root, err := filepath.EvalSymlinks(goroot)
	if err != nil || root == "/" || !filepath.IsAbs(root) {
		fail("the Go toolchain's folder %q: %v", goroot, err)
	}
	return root
}

func main() {
	if len(os.Args) < 2 {
		fail("usage: gorun BINARY ARGS...")
	}
	binary := os.Args[1]
	abi, _, e := syscall.Syscall(sysCreateRuleset, 0, 0, versionFlag)
	if e != 0 {
		fail("Landlock is not available (%v): loop runs Go tests only under it (Linux 5.13 or later)", e)
	}
	write := uint64(accessWrite)
	if abi >= 2 {
		write |= accessRefer
	}
	if abi >= 3 {
		write |= accessTruncate
	}
	handled := uint64(accessExecute|accessReadFile|accessReadDir) | write
	ruleset, _, e := syscall.Syscall(sysCreateRuleset, uintptr(unsafe.Pointer(&handled)), unsafe.Sizeof(handled), 0)
	if e != 0 {
		fail("landlock_create_ruleset: %v", e)
	}
	toolchain := []string{toolchainFolder()}
	addRule(ruleset, binary, accessExecute|accessReadFile)
	// the system's programs, the loader and what programs run from /usr/lib (git's and gcc's helpers); /bin, /sbin
	// and /lib are links to these on a merged /usr
	for _, dir := range []string{"/usr/bin", "/usr/sbin", "/usr/libexec", "/usr/local", "/usr/lib", "/usr/lib64",
		"/bin", "/sbin", "/lib", "/lib64"} {
		if real, err := filepath.EvalSymlinks(dir); err == nil && (dir == real || !strings.HasPrefix(real, "/usr/")) {
			allowResolved(ruleset, real, accessExecute, toolchain)
		}
	}
	// Not even read: a copy of the toolchain's programs runs through the dynamic loader, which maps a file where
	// execve would be refused (red team round sixteen rebuilt the tests with `ld.so go test -c` so)
	allowExcept(ruleset, "/", accessReadFile|accessReadDir, toolchain)
	// not /proc: round seventeen rewrote the helper's channel path in its own memory through /proc/self/mem
	for _, dir := range []string{"/tmp", "/dev", "/loopchannel"} {
		allowExcept(ruleset, dir, write, []string{"/dev/shm"})
	}
	if err := prctlNoNewPrivs(); err != nil {
		fail("prctl(PR_SET_NO_NEW_PRIVS): %v", err)
	}
	if _, _, e := syscall.Syscall(sysRestrictSelf, ruleset, 0, 0); e != 0 {
		fail("landlock_restrict_self: %v", e)
	}
	syscall.Close(int(ruleset))
	err := syscall.Exec(binary, os.Args[1:], os.Environ())
	fail("exec %s: %v", binary, err)
}

func prctlNoNewPrivs() error {
	if _, _, e := syscall.Syscall6(syscall.SYS_PRCTL, 38, 1, 0, 0, 0, 0); e != 0 { // PR_SET_NO_NEW_PRIVS
		return e
	}
	return nil
}
