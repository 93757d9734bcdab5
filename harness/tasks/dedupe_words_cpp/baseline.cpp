#include "dedupe_words.hpp"
#include <unordered_set>

std::vector<std::string> dedupe_words(const std::vector<std::string>& words) {
  std::unordered_set<std::string> seen;
  std::vector<std::string> out;
  for (const auto& word : words) {
    if (seen.insert(word).second) out.push_back(word);
  }
  return out;
}
