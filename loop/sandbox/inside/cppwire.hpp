// Trusted runtime of the generated C++ driver (loop.kinds.function.cppwire writes its main from task.toml's [signature]).
// Requests arrive on a private pipe (fd argv[2]), one call each: "<id> <arg tokens>\n", where an int or bool
// is decimal, a double a hex float, a string "<len>:<bytes>", a vector its count then its items, a pair its
// two items. Replies go to fd argv[1], one JSON line each: {"ready":1} once, then {"id":N,"ok":VALUE},
// {"id":N,"raised":"what"} or {"id":N,"resource":"std::bad_alloc"}. loop decodes them against the signature.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <string>
#include <utility>
#include <vector>
#include <unistd.h>

namespace loop_wire {

struct In {
  FILE* f;
};

inline int next_char(In& in) {
  int c;
  do c = getc_unlocked(in.f); while (c == ' ');
  return c;
}

inline std::string token(In& in) {
  std::string s;
  int c = next_char(in);
  while (c != EOF && c != ' ' && c != '\n' && c != ':') {
    s += static_cast<char>(c);
    c = getc_unlocked(in.f);
  }
  if (c == ':') ungetc(c, in.f);
  return s;
}

inline long long integer(In& in) { return std::strtoll(token(in).c_str(), nullptr, 10); }

inline void read(In& in, int& v) { v = static_cast<int>(integer(in)); }
inline void read(In& in, long& v) { v = static_cast<long>(integer(in)); }
inline void read(In& in, long long& v) { v = integer(in); }
inline void read(In& in, bool& v) { v = integer(in) != 0; }
inline void read(In& in, double& v) { v = std::strtod(token(in).c_str(), nullptr); }

inline void read(In& in, std::string& v) {
  size_t n = static_cast<size_t>(integer(in));
  if (getc_unlocked(in.f) != ':') std::_Exit(72);
  v.resize(n);
  if (n && fread(&v[0], 1, n, in.f) != n) std::_Exit(72);
}

template <class A, class B>
void read(In& in, std::pair<A, B>& v);

template <class T>
void read(In& in, std::vector<T>& v) {
  size_t n = static_cast<size_t>(integer(in));
  v.clear();
  v.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    T x{};
    read(in, x);
    v.push_back(std::move(x));
  }
}

template <class A, class B>
void read(In& in, std::pair<A, B>& v) {
  read(in, v.first);
  read(in, v.second);
}

inline void write(std::string& out, int v) { out += std::to_string(v); }
inline void write(std::string& out, long v) { out += std::to_string(v); }
inline void write(std::string& out, long long v) { out += std::to_string(v); }
inline void write(std::string& out, bool v) { out += v ? "true" : "false"; }

inline void write(std::string& out, double v) {
  if (std::isnan(v)) { out += "{\"f\":\"nan\"}"; return; }
  if (std::isinf(v)) { out += v > 0 ? "{\"f\":\"inf\"}" : "{\"f\":\"-inf\"}"; return; }
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  out += buf;
}

// JSON string: quotes, backslashes and control bytes escaped; other bytes as they are (loop reads the line
// as UTF-8, replacing what is not).
inline void write(std::string& out, const std::string& v) {
  static const char hex[] = "0123456789abcdef";
  out += '"';
  for (unsigned char c : v) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      out += "\\u00";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
}

template <class A, class B>
void write(std::string& out, const std::pair<A, B>& v);

template <class T>
void write(std::string& out, const std::vector<T>& v) {
  out += '[';
  bool first = true;
  for (const auto& x : v) {  // by value for std::vector<bool>'s proxies
    if (!first) out += ',';
    first = false;
    write(out, static_cast<T>(x));
  }
  out += ']';
}

template <class A, class B>
void write(std::string& out, const std::pair<A, B>& v) {
  out += '[';
  write(out, v.first);
  out += ',';
  write(out, v.second);
  out += ']';
}

inline void send(int fd, const std::string& s) {
  const char* p = s.data();
  size_t left = s.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n <= 0) std::_Exit(70);
    p += n;
    left -= static_cast<size_t>(n);
  }
}

// Serve calls until the request pipe closes; `call` reads one call's arguments and writes the value.
inline int serve(int argc, char** argv, void (*call)(In&, std::string&)) {
  if (argc < 3) return 64;
  int out_fd = dup(std::atoi(argv[1]));
  In in{fdopen(dup(std::atoi(argv[2])), "r")};
  if (out_fd < 0 || in.f == nullptr) return 71;
  send(out_fd, "{\"ready\":1}\n");
  for (;;) {
    int c = next_char(in);
    while (c == '\n') c = next_char(in);
    if (c == EOF) return 0;
    ungetc(c, in.f);
    long long id = integer(in);
    std::string reply = "{\"id\":" + std::to_string(id) + ",";
    std::string value;
    try {
      call(in, value);
      reply += "\"ok\":" + value;
    } catch (const std::bad_alloc&) {
      reply += "\"resource\":\"std::bad_alloc\"";
    } catch (const std::exception& e) {
      std::string what(e.what() ? e.what() : "");
      std::string quoted;
      write(quoted, what.substr(0, 300));
      reply += "\"raised\":" + quoted;
    } catch (...) {
      reply += "\"raised\":\"unknown exception\"";
    }
    send(out_fd, reply + "}\n");
  }
}

}  // namespace loop_wire
