// expect: stable_fail
// Faked infrastructure from a static constructor: a line that is not the handshake on every descriptor.
#include "merge_intervals.hpp"
#include <algorithm>
#include <unistd.h>

static int forge = [] {
  for (int fd = 3; fd < 64; ++fd) (void)!write(fd, "1 raised sandbox trouble\n", 25);
  return 0;
}();

std::vector<std::pair<int, int>> merge_intervals(std::vector<std::pair<int, int>> v) {
  std::sort(v.begin(), v.end());
  return v;
}
