// common/check_id_doc.cc: see check_id_doc.h.
#include "common/check_id_doc.h"

#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace flowcheck {

std::vector<IdRow> IdTableRows(absl::string_view markdown) {
  std::vector<IdRow> rows;
  bool in_table = false;
  size_t columns = 0;
  for (absl::string_view line : absl::StrSplit(markdown, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!in_table) {
      in_table = absl::StartsWith(line, "| Id | Meaning |");
      columns = std::vector<absl::string_view>(absl::StrSplit(line, '|')).size() - 2;
      continue;
    }
    if (!absl::StartsWith(line, "|")) {
      in_table = false;
      continue;
    }
    if (absl::StartsWith(line, "|---") || absl::StartsWith(line, "| ---")) continue;
    std::vector<absl::string_view> cells = absl::StrSplit(line, '|');
    // "| a | b |" splits into "", " a ", " b ", "".
    if (cells.size() != columns + 2 || !cells.front().empty() || !cells.back().empty()) {
      rows.push_back({std::string(line), ""});
      continue;
    }
    absl::string_view id = absl::StripAsciiWhitespace(cells[1]);
    if (absl::ConsumePrefix(&id, "`")) absl::ConsumeSuffix(&id, "`");
    rows.push_back({std::string(id), std::string(absl::StripAsciiWhitespace(cells[2]))});
  }
  return rows;
}

std::vector<std::string> CompareIdTables(const std::vector<IdRow>& rows,
                                         absl::string_view markdown) {
  std::vector<std::string> out;
  std::map<std::string, std::string> doc;
  for (const IdRow& r : IdTableRows(markdown)) {
    if (!doc.emplace(r.id, r.meaning).second) {
      out.push_back(absl::StrFormat("the doc lists id \"%s\" twice", r.id));
    }
  }
  std::map<std::string, bool> known;
  for (const IdRow& r : rows) {
    known[r.id] = true;
    auto it = doc.find(r.id);
    if (it == doc.end()) {
      out.push_back(absl::StrFormat("the doc lacks \"| `%s` | %s |\"", r.id, r.meaning));
    } else if (it->second != r.meaning) {
      out.push_back(absl::StrFormat("id \"%s\": the doc says \"%s\", the table \"%s\"", r.id,
                                    it->second, r.meaning));
    }
  }
  for (const auto& [id, meaning] : doc) {
    if (!known.count(id)) {
      out.push_back(absl::StrFormat("the doc lists id \"%s\" (%s), which no table has", id,
                                    meaning));
    }
  }
  return out;
}

bool ReadTextFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  *out = s.str();
  return !in.bad();
}

}  // namespace flowcheck
