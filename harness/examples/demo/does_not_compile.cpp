// Curated patch that does not compile (a missing semicolon).
#include "merge_intervals.hpp"
#include <algorithm>

std::vector<std::pair<int, int>> merge_intervals(std::vector<std::pair<int, int>> intervals) {
  std::sort(intervals.begin(), intervals.end())
  return intervals;
}
