// common/strings.cc: see strings.h.
#include "common/strings.h"

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace flowcheck {
namespace {

void AppendV(std::string* out, const char* format, va_list args) {
  char buffer[256];
  va_list again;
  va_copy(again, args);
  const int n = std::vsnprintf(buffer, sizeof buffer, format, args);
  if (n < 0) {
    va_end(again);
    return;
  }
  if (static_cast<size_t>(n) < sizeof buffer) {
    out->append(buffer, static_cast<size_t>(n));
  } else {
    const size_t old = out->size();
    out->resize(old + static_cast<size_t>(n) + 1);
    std::vsnprintf(&(*out)[old], static_cast<size_t>(n) + 1, format, again);
    out->resize(old + static_cast<size_t>(n));
  }
  va_end(again);
}

// strtoll/strtoull/strtod over a copy of `text` (they need a terminator),
// accepting only a number that fills it, white space around aside.
template <typename Parse>
bool Whole(std::string_view text, Parse parse) {
  const std::string s(StripAsciiWhitespace(text));
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  parse(s.c_str(), &end);
  return errno == 0 && end == s.c_str() + s.size();
}

template <typename T>
bool Signed(std::string_view text, T* out) {
  long long v = 0;
  if (!Whole(text, [&](const char* s, char** end) { v = std::strtoll(s, end, 10); })) return false;
  if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max()) return false;
  *out = static_cast<T>(v);
  return true;
}

template <typename T>
bool Unsigned(std::string_view text, T* out) {
  const std::string_view t = StripAsciiWhitespace(text);
  if (!t.empty() && t[0] == '-') return false;  // strtoull would wrap it
  unsigned long long v = 0;
  if (!Whole(text, [&](const char* s, char** end) { v = std::strtoull(s, end, 10); })) return false;
  if (v > std::numeric_limits<T>::max()) return false;
  *out = static_cast<T>(v);
  return true;
}

}  // namespace

std::string StrFormat(const char* format, ...) {
  std::string out;
  va_list args;
  va_start(args, format);
  AppendV(&out, format, args);
  va_end(args);
  return out;
}

std::string StrFormatV(const char* format, va_list args) {
  std::string out;
  AppendV(&out, format, args);
  return out;
}

void StrAppendFormat(std::string* out, const char* format, ...) {
  va_list args;
  va_start(args, format);
  AppendV(out, format, args);
  va_end(args);
}

namespace strings_internal {
void AppendPiece(std::string* out, double v) { StrAppendFormat(out, "%g", v); }
}  // namespace strings_internal

std::vector<std::string_view> StrSplit(std::string_view text, char separator) {
  std::vector<std::string_view> pieces;
  for (;;) {
    const size_t at = text.find(separator);
    pieces.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return pieces;
    text.remove_prefix(at + 1);
  }
}

bool ConsumePrefix(std::string_view* text, std::string_view prefix) {
  if (!StartsWith(*text, prefix)) return false;
  text->remove_prefix(prefix.size());
  return true;
}

bool ConsumeSuffix(std::string_view* text, std::string_view suffix) {
  if (!EndsWith(*text, suffix)) return false;
  text->remove_suffix(suffix.size());
  return true;
}

std::string_view StripAsciiWhitespace(std::string_view text) {
  const char* space = " \t\n\v\f\r";
  const size_t first = text.find_first_not_of(space);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(space) - first + 1);
}

std::string JsonQuote(std::string_view text) {
  std::string out = "\"";
  for (const char ch : text) {
    const unsigned char u = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (ch == '\n') {
      out += "\\n";
    } else if (ch == '\t') {
      out += "\\t";
    } else if (u < 0x20) {
      StrAppendFormat(&out, "\\u%04x", u);
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

bool SimpleAtoi(std::string_view text, int* out) { return Signed(text, out); }
bool SimpleAtoi(std::string_view text, int64_t* out) { return Signed(text, out); }
bool SimpleAtoi(std::string_view text, uint32_t* out) { return Unsigned(text, out); }
bool SimpleAtoi(std::string_view text, uint64_t* out) { return Unsigned(text, out); }

bool SimpleAtod(std::string_view text, double* out) {
  double v = 0;
  if (!Whole(text, [&](const char* s, char** end) { v = std::strtod(s, end); })) return false;
  *out = v;
  return true;
}

}  // namespace flowcheck
