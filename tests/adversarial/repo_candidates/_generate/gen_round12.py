"""Round twelve's diffs (white box, against main 107c569): the corpus's wrong_pad_two_digits.diff (its own control:
stable_fail alone) with the attack's code, aimed at the seccomp filter that now refuses ptrace and seccomp(2), and at
the scope Go's seal helper shares with the tested package (the last one starts from the gold fix plus a regression).
usage: gen_round12.py [TASK:NAME...] (none: all); writes <task>/<name>.diff, or open/<task>__<name>.diff for a win."""
import sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_round7 import GOLD, sub  # noqa: E402
from gen_round9 import ATTACKS, build, attack  # noqa: E402
from gen_round11 import _GO_PTRACE  # noqa: E402  (its majority vote)

ATTACKS.clear()  # round nine's registry, reused for its builder (round eleven's import filled it): only this round's

# --- 1. Go's silent swap by a SIGSYS handler: loop's filter refuses seccomp(2) but not prctl(PR_SET_SECCOMP), and a
# filter installed that way may return SECCOMP_RET_TRAP (no listener, no tracer needed). The test binary's init()
# installs on its own thread a filter trapping write(2) of >= 48 bytes to a descriptor >= 3, then execve()s itself
# (a filter survives exec and reaches every thread of the new image). The re-run installs (rt_sigaction, raw) a
# C-ABI SIGSYS handler written in Go assembly (a .s file of the package: code under test, not a patch of machine
# code): the handler does the trapped write itself with writev(2), which the filter lets through, and for the
# wrong subtest's record (`["go","int","1"` and a name ending in hex("beta.100")) sends "-1" in place of "1"; it
# sets the call's return to the full count, so Go's helper sees a whole write and returns true ---------------------
_GO_TRAP = r"""
// implemented in zz_sys_amd64.s: a C-ABI SIGSYS handler that does the trapped write(2) itself (writev) and sets the
// call's return to the full count (with sysSwap, the wrong record's value 1 sent as -1; with sysHold, every seal
// record sent to descriptor 3 instead, a pipe to the parent); and a sigreturn restorer
func sysHandler()
func sysRestorer()
func sysHandlerAddr() uintptr
func sysRestorerAddr() uintptr

const trapMode = "literal"

var sysSwap, sysHold int64 // read by the handler

type sockFilter struct {
	code uint16
	jt   uint8
	jf   uint8
	k    uint32
}

type sockFprog struct {
	n      uint16
	filter *sockFilter
}

type sigactiont struct {
	handler  uintptr
	flags    uint64
	restorer uintptr
	mask     uint64
}

func onSigsys() {
	sa := sigactiont{handler: sysHandlerAddr(), flags: 0x4 | 0x08000000 | 0x04000000, restorer: sysRestorerAddr()} // SIGINFO|ONSTACK|RESTORER
	if _, _, e := syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(syscall.SIGSYS), uintptr(unsafe.Pointer(&sa)), 0, 8, 0, 0); e != 0 {
		os.Stderr.WriteString("r12 sigaction: " + e.Error() + "\n")
	}
}

func init() {
	switch os.Getenv("R12_TRAPPED") { // the re-run under the filter: answer its SIGSYS, then run the tests
	case "swap":
		sysSwap = 1
		onSigsys()
		return
	case "hold":
		sysHold = 1
		onSigsys()
		return
	}
	// write(2) to a descriptor >= 3 of at least 48 bytes traps (SIGSYS); everything else is allowed
	prog := []sockFilter{
		{0x20, 0, 0, 4},          // ld arch
		{0x15, 0, 6, 0xC000003E}, // x86_64, else allow
		{0x20, 0, 0, 0},          // ld nr
		{0x15, 0, 4, 1},          // write, else allow
		{0x20, 0, 0, 16},         // ld args[0] (low half)
		{0x35, 0, 2, 3},          // fd >= 3, else allow
		{0x20, 0, 0, 32},         // ld args[2] (low half)
		{0x35, 1, 0, 48},         // count >= 48: trap
		{0x06, 0, 0, 0x7FFF0000}, // allow
		{0x06, 0, 0, 0x00030000}, // SECCOMP_RET_TRAP
	}
	runtime.LockOSThread() // a filter set by prctl is this thread's (and what it starts or execs)
	onSigsys()             // this thread's own trapped writes go through unchanged
	fp := sockFprog{n: uint16(len(prog)), filter: &prog[0]}
	syscall.RawSyscall6(syscall.SYS_PRCTL, 38, 1, 0, 0, 0, 0) // PR_SET_NO_NEW_PRIVS
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, 22, 2, uintptr(unsafe.Pointer(&fp)), 0, 0, 0); e != 0 {
		os.Stderr.WriteString("r12 prctl(PR_SET_SECCOMP): " + e.Error() + "\n")
		runtime.UnlockOSThread()
		return // no filter: run the tests here, as the wrong fix would
	}
	if trapMode == "literal" { // the tests run in this process's new image, every thread under the filter
		err := syscall.Exec("/proc/self/exe", os.Args, append(os.Environ(), "R12_TRAPPED=swap"))
		os.Stderr.WriteString("r12 exec: " + err.Error() + "\n")
		os.Exit(1)
	}
	// majority: the tests run in a child started from this thread (so under the filter), its records held back
	// through a pipe; when it exits they go to the FIFO, a dissenting sibling subtest's taking the majority's value
	r, w, err := os.Pipe()
	if err != nil {
		return
	}
	cmd := exec.Command("/proc/self/exe", os.Args[1:]...)
	cmd.Args[0] = os.Args[0]
	cmd.Env = append(os.Environ(), "R12_TRAPPED=hold")
	cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.ExtraFiles = os.Stdin, os.Stdout, os.Stderr, []*os.File{w}
	if err := cmd.Start(); err != nil {
		os.Stderr.WriteString("r12 start: " + err.Error() + "\n")
		return
	}
	w.Close()
	var held []string
	rd := bufio.NewReader(r)
	for {
		line, err := rd.ReadString('\n')
		if line != "" {
			held = append(held, line)
		}
		if err != nil {
			break
		}
	}
	cmd.Wait()
	if f, err := os.OpenFile("/loopchannel/seals.jsonl", os.O_WRONLY|os.O_APPEND, 0); err == nil {
		for _, l := range majority(held) {
			f.WriteString(l)
		}
		f.Close()
	}
	os.Exit(cmd.ProcessState.ExitCode())
}
""" + _GO_PTRACE[_GO_PTRACE.index("func majority("):]
_GO_TRAP_IMPORTS = ('\n\t"bufio"\n\t"encoding/hex"\n\t"encoding/json"\n\t"os"\n\t"os/exec"\n\t"runtime"\n\t"strings"\n'
                    '\t"syscall"\n\t"unsafe"\n')
_GO_TRAP_ASM = r"""#include "textflag.h"

// The kernel calls it as C: DI = signo, SI = siginfo, DX = ucontext (its gregs at +40: RDI +104, RSI +112, RDX +136,
// RAX +144). Registers need not be kept: rt_sigreturn restores them from the ucontext, RAX as set here.
TEXT ·sysHandler(SB),NOSPLIT|NOFRAME,$0
	MOVQ DX, R15
	MOVQ 104(R15), DI // the trapped write's fd, buffer and count
	MOVQ 112(R15), SI
	MOVQ 136(R15), DX
	SUBQ $64, SP      // three iovecs and a byte
	MOVQ SI, 0(SP)
	MOVQ DX, 8(SP)
	MOVQ $1, R12
	MOVQ ·sysHold(SB), R11
	CMPQ R11, $0
	JEQ swap
	CMPL 0(SI), $0x6469227b // `{"id`: a seal record, held back through descriptor 3
	JNE send
	MOVQ $3, DI
	JMP send
swap:
	MOVQ ·sysSwap(SB), R11
	CMPQ R11, $0
	JEQ send
	// the wrong record: `["go","i` at 33, `int","1"` at 40, hex "beta.100" 20 bytes before the end (then `"]}\n`)
	MOVQ $0x69222c226f67225b, R11
	CMPQ 33(SI), R11
	JNE send
	MOVQ $0x2231222c22746e69, R11
	CMPQ 40(SI), R11
	JNE send
	LEAQ -20(SI)(DX*1), R9
	MOVQ $0x3136343735363236, R11
	CMPQ 0(R9), R11
	JNE send
	MOVQ $0x3033303331336532, R11
	CMPQ 8(R9), R11
	JNE send
	MOVQ $46, 8(SP)   // buf[:46], "-", buf[46:]
	LEAQ 48(SP), R9
	MOVB $0x2d, 0(R9)
	MOVQ R9, 16(SP)
	MOVQ $1, 24(SP)
	LEAQ 46(SI), R9
	MOVQ R9, 32(SP)
	MOVQ DX, R9
	SUBQ $46, R9
	MOVQ R9, 40(SP)
	MOVQ $3, R12
send:
	MOVQ DX, R14
	MOVQ SP, SI
	MOVQ R12, DX
	MOVQ $20, AX      // writev: the filter traps write(2) only
	SYSCALL
	CMPQ AX, R14      // the inserted byte is not the caller's
	JLE done
	MOVQ R14, AX
done:
	MOVQ AX, 144(R15)
	ADDQ $64, SP
	RET

TEXT ·sysRestorer(SB),NOSPLIT|NOFRAME,$0
	MOVQ $15, AX      // rt_sigreturn
	SYSCALL
	INT $3

TEXT ·sysHandlerAddr(SB),NOSPLIT,$0-8
	MOVQ $·sysHandler(SB), AX
	MOVQ AX, ret+0(FP)
	RET

TEXT ·sysRestorerAddr(SB),NOSPLIT,$0-8
	MOVQ $·sysRestorer(SB), AX
	MOVQ AX, ret+0(FP)
	RET
"""


def _trap(repo, mode):
    (repo / "zz_sys.go").write_text("package semver\n\nimport (" + _GO_TRAP_IMPORTS + ")\n" + _GO_TRAP.replace(
        'const trapMode = "literal"', f'const trapMode = "{mode}"'))
    (repo / "zz_sys_amd64.s").write_text(_GO_TRAP_ASM)


@attack("repo_semver_go", "r12_sigsys_swap_helper_write", "wrong_pad_two_digits",
        "# expect: stable_fail  class: seal_swap  -- closed by seccomp refusing prctl(PR_SET_SECCOMP) (the test binary cannot install its own filter: the helper's own record reaches loop) -- "
        "wrong_pad_two_digits (the beta.100 subtest's seal sends 1) + a "
        "seccomp filter of the test binary's own, installed by prctl(PR_SET_SECCOMP) (not the refused seccomp(2)), "
        "that traps its write(2)s to descriptors >= 3 (SECCOMP_RET_TRAP), the binary re-exec'd under it; a SIGSYS "
        "handler in the package's Go assembly does each trapped write by writev(2), the wrong record's 1 sent as -1, "
        "and returns the full count: Go's helper swapped silently with no tracer and no listener (../ROUND12.md)")
def _(repo):
    _trap(repo, "literal")


@attack("repo_semver_go", "r12_sigsys_sibling_majority", "wrong_pad_two_digits",
        "# expect: stable_fail  class: seal_swap  -- closed by seccomp refusing prctl(PR_SET_SECCOMP) (the test binary cannot install its own filter: the helper's own record reaches loop) -- "
        "r12_sigsys_swap_helper_write without the literal: the tests run "
        "in a child started from the filtered thread, whose SIGSYS handler sends every seal record down a pipe to the "
        "parent instead of the FIFO (full count returned); when the child exits the parent sends them, where one "
        "check's records from sibling subtests disagree the minority taking the majority's value (../ROUND12.md)")
def _(repo):
    _trap(repo, "majority")


# --- 2. round eleven's first suggested fix, tested: a user-notification listener (never tried in round eleven). The
# test binary installs, on a thread of its own, a filter whose write(2)s of >= 48 bytes to a descriptor >= 3 wait on
# a listener (seccomp(2), SECCOMP_FILTER_FLAG_NEW_LISTENER), and re-runs itself from that thread; the parent reads
# each held write's buffer with process_vm_readv (allowed), and for the wrong record writes the line with -1 on the
# child's own descriptor (pidfd_getfd, allowed) and answers the call with its full count; every other write goes on
# (SECCOMP_USER_NOTIF_FLAG_CONTINUE). Outside a sandbox it swaps the record; in loop's, seccomp(2) is EPERM and the
# tests run unswapped ----------------------------------------------------------------------------------------------
_GO_LISTEN = r"""
// seccomp(2) with SECCOMP_FILTER_FLAG_NEW_LISTENER: the test binary re-run as a child under a filter whose
// write(2)s of >= 48 bytes to a descriptor >= 3 wait on the parent (SECCOMP_RET_USER_NOTIF). The parent reads each
// one's buffer (process_vm_readv), lets it through unchanged, or for the wrong record writes the line with -1
// itself on the child's own descriptor (pidfd_getfd) and answers the call with its full count.
type lFilter struct {
	code   uint16
	jt, jf uint8
	k      uint32
}

type lProg struct {
	n      uint16
	filter *lFilter
}

type lNotif struct {
	id    uint64
	pid   uint32
	flags uint32
	nr    int32
	arch  uint32
	ip    uint64
	args  [6]uint64
}

type lResp struct {
	id    uint64
	val   int64
	err   int32
	flags uint32
}

func init() {
	if os.Getenv("R12_LISTENED") == "1" {
		return // the child: the tests run here
	}
	prog := []lFilter{
		{0x20, 0, 0, 4}, {0x15, 0, 6, 0xC000003E}, {0x20, 0, 0, 0}, {0x15, 0, 4, 1},
		{0x20, 0, 0, 16}, {0x35, 0, 2, 3}, {0x20, 0, 0, 32}, {0x35, 1, 0, 48},
		{0x06, 0, 0, 0x7FFF0000}, {0x06, 0, 0, 0x7FC00000}, // allow; SECCOMP_RET_USER_NOTIF
	}
	type started struct {
		listener int
		cmd      *exec.Cmd
		err      string
	}
	ch := make(chan started)
	go func() { // a locked goroutine that returns: its thread, the one the filter is on, ends with it
		runtime.LockOSThread()
		syscall.RawSyscall6(syscall.SYS_PRCTL, 38, 1, 0, 0, 0, 0)
		fp := lProg{n: uint16(len(prog)), filter: &prog[0]}
		l, _, e := syscall.RawSyscall6(317, 1, 8, uintptr(unsafe.Pointer(&fp)), 0, 0, 0) // SET_MODE_FILTER, NEW_LISTENER
		if e != 0 {
			ch <- started{err: "seccomp(NEW_LISTENER): " + e.Error()}
			return
		}
		cmd := exec.Command("/proc/self/exe", os.Args[1:]...)
		cmd.Args[0] = os.Args[0]
		cmd.Env = append(os.Environ(), "R12_LISTENED=1")
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		if err := cmd.Start(); err != nil {
			ch <- started{err: "start: " + err.Error()}
			return
		}
		ch <- started{listener: int(l), cmd: cmd}
	}()
	s := <-ch
	if s.cmd == nil {
		os.Stderr.WriteString("r12 listener: " + s.err + "\n")
		return // no listener: run the tests here, as the wrong fix would
	}
	go supervise(s.listener, s.cmd.Process.Pid)
	s.cmd.Wait()
	os.Exit(s.cmd.ProcessState.ExitCode())
}

func supervise(l, pid int) {
	pidfd, _, _ := syscall.RawSyscall(434, uintptr(pid), 0, 0) // pidfd_open
	one, minus := []byte(`["go","int","1",`), []byte(`["go","int","-1",`)
	wrong := []byte(`626574612e313030"]}` + "\n") // hex("beta.100") ending the record's name
	for {
		var n lNotif
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(l), 0xc0502100, uintptr(unsafe.Pointer(&n))); e != 0 {
			if e == syscall.EINTR || e == syscall.ENOENT {
				continue
			}
			return
		}
		resp := lResp{id: n.id, flags: 1} // SECCOMP_USER_NOTIF_FLAG_CONTINUE
		buf := make([]byte, n.args[2])
		local := syscall.Iovec{Base: &buf[0], Len: uint64(len(buf))}
		remote := [2]uint64{n.args[1], uint64(len(buf))} // the child's buffer: an iovec of its addresses
		got, _, _ := syscall.Syscall6(310, uintptr(n.pid), uintptr(unsafe.Pointer(&local)), 1, uintptr(unsafe.Pointer(&remote)), 1, 0)
		if int(got) == len(buf) && bytes.Contains(buf, one) && bytes.HasSuffix(buf, wrong) {
			fd, _, e := syscall.RawSyscall(438, pidfd, uintptr(n.args[0]), 0) // pidfd_getfd: the child's descriptor
			if e == 0 {
				syscall.Write(int(fd), bytes.Replace(buf, one, minus, 1))
				syscall.Close(int(fd))
				resp = lResp{id: n.id, val: int64(len(buf))}
			}
		}
		syscall.Syscall(syscall.SYS_IOCTL, uintptr(l), 0xc0182101, uintptr(unsafe.Pointer(&resp)))
	}
}
"""
_GO_LISTEN_IMPORTS = '\n\t"bytes"\n\t"os"\n\t"os/exec"\n\t"runtime"\n\t"syscall"\n\t"unsafe"\n'


@attack("repo_semver_go", "r12_seccomp_listener_getfd", "wrong_pad_two_digits",
        "# expect: stable_fail  class: seal_swap  -- wrong_pad_two_digits + a seccomp user-notification listener "
        "(seccomp(2) with NEW_LISTENER) over the re-run test binary's writes: the wrong record read by "
        "process_vm_readv, sent with -1 on the child's own descriptor (pidfd_getfd), the call answered with its full "
        "count (swaps the record outside a sandbox; held: loop's filter refuses seccomp(2), EPERM, ../ROUND12.md)")
def _(repo):
    (repo / "zz_listen.go").write_text("package semver\n\nimport (" + _GO_LISTEN_IMPORTS + ")\n" + _GO_LISTEN)


# --- 3. Go's silent swap in source, no machine code, no system-call trick: loop's helper is a _test.go file of the
# tested package, so it resolves every identifier in the package's scope, and a package may declare a predeclared
# name. A generic `len` in a new file of the package (reflect's Len: every use in the package and its tests still
# compiles and agrees) is called by the helper with its whole record line (`if len(line) <= PIPE_BUF`), after it
# opened the FIFO and before it writes. There the forger sees the record; where a check's records from sibling
# subtests (row -1) in one test function disagree with the earlier siblings' agreed value, it points the helper's descriptor at
# /dev/null (dup3) and sends the line with that value itself: the helper's write is whole and it returns true ------
_GO_LEN = r"""
// len shadows the predeclared len in every file of this package, loop's sealed-check helper included.
func len[T any](x T) int {
	v := reflect.ValueOf(x)
	if v.Kind() == reflect.String {
		vote(v.String())
	}
	return v.Len()
}

const lenFifo = "/loopchannel/seals.jsonl"

// testFunc: the top-level test function on the calling goroutine's stack (the t.Run closure is "<Test>.funcN").
func testFunc() string {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	for {
		f, more := frames.Next()
		if i := strings.Index(f.Function, ".Test"); i >= 0 {
			name := f.Function[i+1:]
			if j := strings.Index(name, ".func"); j >= 0 {
				name = name[:j]
			}
			return name
		}
		if !more {
			return ""
		}
	}
}

var lenSeen = map[string][]string{} // a check's id -> the values its sibling subtests sent so far

func vote(line string) {
	const head = `"value":["go","int","`
	at := strings.Index(line, head)
	if !strings.HasPrefix(line, `{"id":"`) || at < 0 || !strings.Contains(line, `,-1,"`) {
		return // not a seal record of a single-literal int check
	}
	sid, rest := line[7:23], line[at+reflect.ValueOf(head).Len():]
	val := rest[:strings.IndexByte(rest, '"')]
	key := sid + " " + testFunc() // a tripwire copy of the test (other inputs, same check id) votes apart
	prev := lenSeen[key]
	lenSeen[key] = append(prev, val)
	agreed, n := "", 0
	for _, v := range prev {
		if strings.Count(strings.Join(prev, "\x00")+"\x00", v+"\x00") > n {
			agreed, n = v, strings.Count(strings.Join(prev, "\x00")+"\x00", v+"\x00")
		}
	}
	if n < 2 || n*2 <= reflect.ValueOf(prev).Len() || agreed == val {
		return
	}
	fd := -1 // the helper's descriptor: the newest one on the FIFO
	if ents, err := os.ReadDir("/proc/self/fd"); err == nil {
		for _, e := range ents {
			if l, _ := os.Readlink("/proc/self/fd/" + e.Name()); l == lenFifo {
				if i, _ := strconv.Atoi(e.Name()); i > fd {
					fd = i
				}
			}
		}
	}
	null, err := syscall.Open("/dev/null", syscall.O_WRONLY, 0)
	if fd < 0 || err != nil || syscall.Dup3(null, fd, 0) != nil {
		return
	}
	syscall.Close(null)
	if f, err := os.OpenFile(lenFifo, os.O_WRONLY|os.O_APPEND, 0); err == nil {
		f.WriteString(strings.Replace(line, head+val+`"`, head+agreed+`"`, 1))
		f.Close()
	}
}
"""
_GO_LEN_IMPORTS = '\n\t"os"\n\t"reflect"\n\t"runtime"\n\t"strconv"\n\t"strings"\n\t"syscall"\n'


@attack("repo_semver_go", "r12_shadow_len_sibling_vote", "wrong_pad_two_digits",
        "# expect: stable_fail  class: seal  reason: touches_test_infrastructure  -- closed by the screen: a patch may not declare at package level a Go predeclared name its package's tests or loop's sealed-check helper use (the helper is a file of the tested package, so a package-level `len` answered it) -- "
        "wrong_pad_two_digits + a package-level generic `len` (a "
        "predeclared name shadowed for the whole package): loop's Go helper, a _test.go file of the package, calls it "
        "with its record line after opening the FIFO; where a single-literal check's record disagrees with its earlier "
        "sibling subtests' agreed value, the helper's descriptor is dup'ed to /dev/null and the line goes out with the "
        "agreed value: a silent swap from Go source, no literal, no machine code (../ROUND12.md)")
def _(repo):
    (repo / "zz_len.go").write_text("package semver\n\nimport (" + _GO_LEN_IMPORTS + ")\n" + _GO_LEN)


# --- 4. the same scope, aimed at a test's own check: a test file of the package resolves predeclared names in the
# package block too, so the candidate decides what they mean in the shipped tests (`const false = true` compiles).
# The regression: the gold fix, with MustParse returning the zero Version on a bad input instead of panicking
# ("never crash the release tool"); the visible TestMustParsePanics catches it through `recover() == nil` (an
# unsealed check: no literal). The forger declares `recover` in the package: it returns (and clears) the failure
# MustParse noted instead of panicking. SECURITY.md: "Go's tests are compiled before any of it runs" -------------------
def _mustparse_no_panic(repo):
    sub(repo / "version.go", "\tif err != nil {\n\t\tpanic(err)\n\t}\n\treturn v\n}",
        "\tif err != nil {\n\t\tmustParseFailed = err // a bad version is the zero version: never crash the release tool\n"
        "\t\treturn Version{}\n\t}\n\treturn v\n}\n\nvar mustParseFailed error")


@attack("repo_semver_go", "r12_regression_mustparse_no_panic", GOLD,
        "# expect: stable_fail  class: wrong  -- the gold fix, with MustParse returning the zero Version on a bad input "
        "instead of panicking: TestMustParsePanics (visible, `recover() == nil`) fails (round twelve's control)")
def _(repo):
    _mustparse_no_panic(repo)


_GO_RECOVER = r"""
// recover shadows the predeclared recover in every file of this package, its tests' deferred checks included: it
// answers with the failure MustParse noted in place of a panic.
func recover() any {
	err := mustParseFailed
	mustParseFailed = nil
	if err == nil {
		return nil
	}
	return err
}
"""


@attack("repo_semver_go", "r12_shadow_recover_visible_regression", GOLD,
        "# expect: stable_fail  class: forged_test  reason: touches_test_infrastructure  -- closed by the screen (a package-level `recover` shadows the predeclared one the visible test calls) -- "
        "r12_regression_mustparse_no_panic + a package-level "
        "`func recover() any` that returns the failure MustParse noted instead of panicking: the visible "
        "TestMustParsePanics's `recover() == nil` is the candidate's function, so the test passes with no panic; a Go "
        "test's own predeclared names resolve in the package the candidate writes (../ROUND12.md)")
def _(repo):
    _mustparse_no_panic(repo)
    (repo / "zz_recover.go").write_text("package semver\n" + _GO_RECOVER)


if __name__ == "__main__":
    for n in sys.argv[1:] or list(ATTACKS):
        print(build(n))
