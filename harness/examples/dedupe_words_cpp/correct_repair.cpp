// A correct repair in another style than the reference: a sorted set of folded keys, folded with <cctype>.
#include "dedupe_words.hpp"
#include <algorithm>
#include <cctype>
#include <set>

std::vector<std::string> dedupe_words(const std::vector<std::string>& words) {
  std::set<std::string> seen;
  std::vector<std::string> out;
  for (const auto& word : words) {
    std::string key(word.size(), '\0');
    std::transform(word.begin(), word.end(), key.begin(), [](unsigned char c) {
      return static_cast<char>(c < 0x80 ? std::tolower(c) : c);
    });
    if (seen.insert(key).second) out.push_back(word);
  }
  return out;
}
