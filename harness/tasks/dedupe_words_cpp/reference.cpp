#include "dedupe_words.hpp"
#include <unordered_set>

static std::string fold(const std::string& word) {
  std::string key = word;
  for (auto& c : key) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return key;
}

std::vector<std::string> dedupe_words(const std::vector<std::string>& words) {
  std::unordered_set<std::string> seen;
  std::vector<std::string> out;
  for (const auto& word : words) {
    if (seen.insert(fold(word)).second) out.push_back(word);
  }
  return out;
}
