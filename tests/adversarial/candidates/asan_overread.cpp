// expect: stable_fail sanitizer
// Right answers, but every call reads one element past the end of its input: only the sanitizer sees it.
#include "merge_intervals.hpp"
#include <algorithm>

std::vector<std::pair<int, int>> merge_intervals(std::vector<std::pair<int, int>> v) {
  std::vector<int> probe(v.size() + 1, 0);
  volatile std::size_t past = probe.size();
  volatile int sink = probe.data()[past];
  (void)sink;
  std::sort(v.begin(), v.end());
  std::vector<std::pair<int, int>> out;
  for (auto [lo, hi] : v) {
    if (!out.empty() && lo <= out.back().second) out.back().second = std::max(out.back().second, hi);
    else out.push_back({lo, hi});
  }
  return out;
}
