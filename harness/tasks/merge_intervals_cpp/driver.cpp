// Trusted harness driver: answers calls on a private pipe, one line per call.
// Request (stdin):  "<id> <n> lo hi lo hi ..."
// Reply (fd argv[1]): "<id> ok <m> lo hi ..." | "<id> resource <what>" | "<id> raised <what>"
#include "merge_intervals.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <sstream>
#include <string>
#include <unistd.h>

static int g_out = -1;

static void send(const std::string& s) {
  const char* p = s.data();
  size_t left = s.size();
  while (left > 0) {
    ssize_t n = write(g_out, p, left);
    if (n <= 0) std::_Exit(70);
    p += n;
    left -= static_cast<size_t>(n);
  }
}

static std::string clean(const char* what) {
  std::string s(what ? what : "");
  for (auto& c : s) if (c == '\n' || c == '\r') c = ' ';
  return s.substr(0, 300);
}

int main(int argc, char** argv) {
  if (argc < 2) return 64;
  g_out = dup(std::atoi(argv[1]));
  FILE* in = fdopen(dup(0), "r");
  if (g_out < 0 || in == nullptr) return 71;
  send("ready\n");
  char* line = nullptr;
  size_t cap = 0;
  while (getline(&line, &cap, in) > 0) {
    std::istringstream ss(line);
    long long id = 0;
    long long n = 0;
    ss >> id >> n;
    std::string reply = std::to_string(id);
    try {
      std::vector<std::pair<int, int>> input(static_cast<size_t>(n));
      for (auto& iv : input) ss >> iv.first >> iv.second;
      auto out = merge_intervals(input);
      std::string body = " ok " + std::to_string(out.size());
      for (const auto& iv : out) body += " " + std::to_string(iv.first) + " " + std::to_string(iv.second);
      reply += body;
    } catch (const std::bad_alloc&) {
      reply += " resource std::bad_alloc";
    } catch (const std::exception& e) {
      reply += " raised " + clean(e.what());
    } catch (...) {
      reply += " raised unknown exception";
    }
    send(reply + "\n");
  }
  return 0;
}
