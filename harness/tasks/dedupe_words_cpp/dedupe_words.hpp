#pragma once
#include <string>
#include <vector>
// Drops every word equal to an earlier word when ASCII letters are compared without case: 'A'-'Z' match
// 'a'-'z', every other byte compares as it is (so "Ä" and "ä" stay apart). Keeps the first occurrence's
// spelling and the original order. Empty input yields an empty vector; the input is never changed.
std::vector<std::string> dedupe_words(const std::vector<std::string>& words);
