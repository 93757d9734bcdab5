#pragma once
#include <utility>
#include <vector>
// Merges overlapping and touching [lo, hi) intervals.
// Empty input yields an empty vector. Output is sorted by lo and pairwise disjoint.
std::vector<std::pair<int, int>> merge_intervals(
    std::vector<std::pair<int, int>> intervals);
