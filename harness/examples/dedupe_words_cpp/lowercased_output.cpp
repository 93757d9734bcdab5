// Wrong: drops the right words but returns them lower-cased instead of keeping the first spelling.
#include "dedupe_words.hpp"
#include <unordered_set>

std::vector<std::string> dedupe_words(const std::vector<std::string>& words) {
  std::unordered_set<std::string> seen;
  std::vector<std::string> out;
  for (auto word : words) {
    for (auto& c : word) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    if (seen.insert(word).second) out.push_back(word);
  }
  return out;
}
