// expect: stable_fail sanitizer_probe
// Tells the sanitized run from the plain one by its address-space limit (set only on the plain run) and
// reads out of bounds only where no sanitizer watches (issue 28).
#include "merge_intervals.hpp"
#include <algorithm>
#include <sys/resource.h>

std::vector<std::pair<int, int>> merge_intervals(std::vector<std::pair<int, int>> v) {
  std::sort(v.begin(), v.end());
  std::vector<std::pair<int, int>> out;
  for (auto [lo, hi] : v) {
    if (!out.empty() && lo <= out.back().second) out.back().second = std::max(out.back().second, hi);
    else out.push_back({lo, hi});
  }
  struct rlimit lim;
  if (getrlimit(RLIMIT_AS, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY) {
    std::vector<int> probe(out.size() + 1, 0);
    volatile std::size_t past = probe.size();
    volatile int sink = probe.data()[past];
    (void)sink;
  }
  return out;
}
