#include "merge_intervals.hpp"
#include <algorithm>

std::vector<std::pair<int, int>> merge_intervals(
    std::vector<std::pair<int, int>> intervals) {
  if (intervals.empty()) return {};
  std::vector<std::pair<int, int>> out{intervals.front()};
  for (size_t i = 1; i < intervals.size(); ++i) {
    if (intervals[i].first <= out.back().second)
      out.back().second = std::max(out.back().second, intervals[i].second);
    else
      out.push_back(intervals[i]);
  }
  return out;
}
