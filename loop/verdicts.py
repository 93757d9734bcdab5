"""The one vocabulary: every verdict, status, transition and reason string lives here.

Other modules import these names instead of spelling the strings again.
"""

# Candidate verdicts
STABLE_PASS = "stable_pass"
STABLE_PASS_VARYING = "stable_pass_varying"
FLAKY = "flaky"
STABLE_FAIL = "stable_fail"
INCONCLUSIVE = "inconclusive"
INFRA_UNKNOWN = "infra_unknown"  # also an attempt status and a candidate status
VERDICTS = (STABLE_PASS, STABLE_PASS_VARYING, FLAKY, STABLE_FAIL, INCONCLUSIVE, INFRA_UNKNOWN)
GREEN = (STABLE_PASS, STABLE_PASS_VARYING)

# Attempt status
PASS = "pass"
FAIL = "fail"

# Transitions and test kinds
REPAIRED = "repaired"
STILL_BROKEN = "still_broken"
PRESERVED = "preserved"
REGRESSED = "regressed"
F2P = "f2p"
P2P = "p2p"
SUITES = ("smoke", "full")

# Failure checks (some are prefixes: golden:<case>, test:<name>, relation:<name>)
BUILD = "build"
NO_CHANGE = "no_change"
NO_CODE = "no_code"
SANITIZER = "sanitizer"
SANITIZER_PROBE = "sanitizer_probe"
NOT_MUTATED = "relation:input_not_mutated"
TIMEOUT = "timeout"
CRASH = "crash"
RESOURCE = "resource"
WORKER_LOST = "worker_lost"  # a cluster worker died grading it, more often than the scheduler allows

# A candidate `loop run --budget` never asked for (status and reason; no verdict: a resume asks for it)
NOT_ASKED = "not_asked"
OVER_BUDGET = "over_budget"

# Endpoint infra reasons
RATE_LIMITED = "rate_limited"
QUOTA = "quota"
SERVER_ERROR = "server_error"
ENDPOINT_TIMEOUT = "timeout"
CONNECTION = "connection"
BAD_RESPONSE = "bad_response"

# Synthesized tests
REPRODUCES_BUG = "reproduces_bug"
REPRODUCES_NOTHING = "reproduces_nothing"
WRONG_EXPECTATION = "wrong_expectation"
ACCEPTED = "accepted"
REJECTED = "rejected"

# Exit status of loop commands
EXIT_GREEN = 0
EXIT_RED = 1
EXIT_USAGE = 2
EXIT_INCONCLUSIVE = 3


def exit_status(verdict: str) -> int:
    """Map a candidate verdict to the documented CI exit status."""
    if verdict in GREEN:
        return EXIT_GREEN
    if verdict in (INCONCLUSIVE, INFRA_UNKNOWN):
        return EXIT_INCONCLUSIVE
    return EXIT_RED
