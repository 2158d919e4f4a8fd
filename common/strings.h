// common/strings.h: printf-style formatting and the few string helpers
// flowcheck's layers share. Built on the C++ library alone, so that no
// layer's compile (four times per test command: TSan and the three OSS-Fuzz
// builds) pays for a formatting library's headers and sources.
//
// StrFormat and StrAppendFormat take printf's conversions and are checked
// by the compiler as printf is (-Wformat, an error in our code): a
// std::string goes in as .c_str(), an int64_t as PRId64, a size_t as %zu.
#ifndef FLOWCHECK_COMMON_STRINGS_H_
#define FLOWCHECK_COMMON_STRINGS_H_

#include <cinttypes>
#include <cstdarg>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace flowcheck {

// printf's output as a string; never truncated.
std::string StrFormat(const char* format, ...) __attribute__((format(printf, 1, 2)));
// The same from a va_list (the caller's own printf-like function).
std::string StrFormatV(const char* format, va_list args);
// The same, appended to *out.
void StrAppendFormat(std::string* out, const char* format, ...)
    __attribute__((format(printf, 2, 3)));

namespace strings_internal {
inline void AppendPiece(std::string* out, std::string_view s) { out->append(s); }
inline void AppendPiece(std::string* out, const char* s) { out->append(s); }
inline void AppendPiece(std::string* out, const std::string& s) { out->append(s); }
void AppendPiece(std::string* out, double v);  // %g, as many digits as "%.6g"
template <typename T,
          typename = std::enable_if_t<std::is_integral<T>::value && !std::is_same<T, char>::value>>
void AppendPiece(std::string* out, T v) {
  out->append(std::to_string(v));
}
}  // namespace strings_internal

// The pieces appended in order: strings as they are, integers in decimal
// (a char is refused: say whether it is a letter or a number).
template <typename... Pieces>
void StrAppend(std::string* out, const Pieces&... pieces) {
  (strings_internal::AppendPiece(out, pieces), ...);
}
template <typename... Pieces>
std::string StrCat(const Pieces&... pieces) {
  std::string out;
  StrAppend(&out, pieces...);
  return out;
}

// The pieces of `text` between the separators: n separators, n + 1 pieces
// (an empty text is one empty piece). The views point into `text`.
std::vector<std::string_view> StrSplit(std::string_view text, char separator);

// The strings joined with `separator` between them.
template <typename Strings>
std::string StrJoin(const Strings& strings, std::string_view separator) {
  std::string out;
  bool first = true;
  for (const auto& s : strings) {
    if (!first) out.append(separator);
    first = false;
    strings_internal::AppendPiece(&out, s);
  }
  return out;
}

inline bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}
inline bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}
inline bool StrContains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}
// Removes the prefix (suffix) if *text has it; says whether it did.
bool ConsumePrefix(std::string_view* text, std::string_view prefix);
bool ConsumeSuffix(std::string_view* text, std::string_view suffix);
// `text` without leading and trailing ASCII white space.
std::string_view StripAsciiWhitespace(std::string_view text);

// `text` as a JSON string literal, quotes included: quotes, backslashes and
// control characters escaped; bytes >= 0x80 pass through (UTF-8 stays UTF-8).
std::string JsonQuote(std::string_view text);

// The whole of `text` (surrounding white space allowed) as a number of *out's
// type, in range; false otherwise, *out unspecified.
bool SimpleAtoi(std::string_view text, int* out);
bool SimpleAtoi(std::string_view text, int64_t* out);
bool SimpleAtoi(std::string_view text, uint32_t* out);
bool SimpleAtoi(std::string_view text, uint64_t* out);
bool SimpleAtod(std::string_view text, double* out);

}  // namespace flowcheck

#endif  // FLOWCHECK_COMMON_STRINGS_H_
