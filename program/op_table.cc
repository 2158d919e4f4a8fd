// program/op_table.cc: see op_table.h.
#include "program/op_table.h"

#include "common/strings.h"
#include "core/tid_rdma.h"

namespace flowcheck {
namespace program {
namespace {

// An op's argument: a number small enough that no list means more.
bool ParseInt(const std::string& s, int* out) {
  return flowcheck::SimpleAtoi(s, out) && *out >= -1000000 && *out <= 1000000;
}

}  // namespace

const char* ListedOpName(ListedOpKind kind) { return kListedOpRows[kind].name; }

std::string FormatOps(const std::vector<ListedOp>& ops) {
  std::vector<std::string> parts;
  for (const ListedOp& op : ops) {
    const ListedOpRow& row = kListedOpRows[op.kind];
    const bool two = row.args == kContextFlow || (row.args == kSlotPagesets && op.b != 0);
    parts.push_back(two ? flowcheck::StrCat(row.name, "@", op.a, ".", op.b)
                        : flowcheck::StrCat(row.name, "@", op.a));
  }
  return flowcheck::StrJoin(parts, ",");
}

bool ParseOps(const std::string& text, std::vector<ListedOp>* ops, std::string* error) {
  ops->clear();
  if (text.empty()) return true;
  for (const std::string_view token : flowcheck::StrSplit(text, ',')) {
    const std::string t(token);
    const size_t at = t.find('@');
    const std::string name = t.substr(0, at);
    ListedOp op;
    int kind = 0;
    while (kind < kNumListedOps && name != kListedOpRows[kind].name) ++kind;
    if (kind == kNumListedOps) {
      *error = "unknown op '" + t + "'";
      return false;
    }
    op.kind = static_cast<ListedOpKind>(kind);
    const OpArgs args = kListedOpRows[kind].args;
    if (args == kContextFlow) op.b = RXE_NUM_TID_FLOWS;  // "don't care"
    if (at != std::string::npos) {
      const std::string a = t.substr(at + 1);
      const size_t dot = a.find('.');
      if (!ParseInt(a.substr(0, dot), &op.a) || op.a < 0 ||
          (dot != std::string::npos &&
           ((args != kContextFlow && args != kSlotPagesets) ||
            !ParseInt(a.substr(dot + 1), &op.b)))) {
        *error = "bad argument in op '" + t +
                 "' (expected NAME@N, or NAME@CONTEXT.FLOW for bare_reserve, NAME@SLOT.PAGESETS "
                 "for segment and write_alloc)";
        return false;
      }
      if (args == kSlotPagesets && (op.b < 0 || op.b > 16 || op.b % 2 != 0)) {
        *error = "bad argument in op '" + t + "' (" + name +
                 "@SLOT.PAGESETS: an even 2..16, or 0)";
        return false;
      }
    }
    ops->push_back(op);
  }
  return true;
}

}  // namespace program
}  // namespace flowcheck
