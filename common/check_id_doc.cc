// common/check_id_doc.cc: see check_id_doc.h.
#include "common/check_id_doc.h"

#include <map>
#include <vector>

#include "common/strings.h"

namespace flowcheck {

std::vector<IdRow> IdTableRows(std::string_view markdown) {
  std::vector<IdRow> rows;
  bool in_table = false;
  size_t columns = 0;
  for (std::string_view line : flowcheck::StrSplit(markdown, '\n')) {
    line = flowcheck::StripAsciiWhitespace(line);
    if (!in_table) {
      in_table = flowcheck::StartsWith(line, "| Id | Meaning |");
      columns = std::vector<std::string_view>(flowcheck::StrSplit(line, '|')).size() - 2;
      continue;
    }
    if (!flowcheck::StartsWith(line, "|")) {
      in_table = false;
      continue;
    }
    if (flowcheck::StartsWith(line, "|---") || flowcheck::StartsWith(line, "| ---")) continue;
    std::vector<std::string_view> cells = flowcheck::StrSplit(line, '|');
    // "| a | b |" splits into "", " a ", " b ", "".
    if (cells.size() != columns + 2 || !cells.front().empty() || !cells.back().empty()) {
      rows.push_back({std::string(line), ""});
      continue;
    }
    std::string_view id = flowcheck::StripAsciiWhitespace(cells[1]);
    if (flowcheck::ConsumePrefix(&id, "`")) flowcheck::ConsumeSuffix(&id, "`");
    rows.push_back({std::string(id), std::string(flowcheck::StripAsciiWhitespace(cells[2]))});
  }
  return rows;
}

std::vector<std::string> CompareIdTables(const std::vector<IdRow>& rows,
                                         std::string_view markdown) {
  std::vector<std::string> out;
  std::map<std::string, std::string> doc;
  for (const IdRow& r : IdTableRows(markdown)) {
    if (!doc.emplace(r.id, r.meaning).second) {
      out.push_back(flowcheck::StrFormat("the doc lists id \"%s\" twice", r.id.c_str()));
    }
  }
  std::map<std::string, bool> known;
  for (const IdRow& r : rows) {
    known[r.id] = true;
    auto it = doc.find(r.id);
    if (it == doc.end()) {
      out.push_back(
          flowcheck::StrFormat("the doc lacks \"| `%s` | %s |\"", r.id.c_str(), r.meaning.c_str()));
    } else if (it->second != r.meaning) {
      out.push_back(flowcheck::StrFormat("id \"%s\": the doc says \"%s\", the table \"%s\"",
                                         r.id.c_str(), it->second.c_str(), r.meaning.c_str()));
    }
  }
  for (const auto& [id, meaning] : doc) {
    if (!known.count(id)) {
      out.push_back(flowcheck::StrFormat("the doc lists id \"%s\" (%s), which no table has",
                                         id.c_str(), meaning.c_str()));
    }
  }
  return out;
}

}  // namespace flowcheck
