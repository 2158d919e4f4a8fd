// common/check_id_doc.h: keeps a doc's id table equal to a checker's CheckId
// table (common/check_id.h), for the tests that guard docs/core.md and
// docs/stress.md. Testonly.
//
//   std::vector<IdRow> rows;
//   AppendIdRows(kInvariantIds, &rows);
//   std::string doc;
//   ASSERT_TRUE(ReadWholeFile("docs/core.md", &doc));  // common/atomic_file.h; a data dependency
//   EXPECT_THAT(CompareIdTables(rows, doc), IsEmpty());
//
// A doc's id table is a markdown table whose header row starts with
// "| Id | Meaning |"; each row is "| `ID` | meaning |", the meaning word for
// word the table's, then as many more cells as the header has columns
// (which the comparison ignores). A doc may hold several such tables;
// together they must list exactly the rows given.
#ifndef FLOWCHECK_COMMON_CHECK_ID_DOC_H_
#define FLOWCHECK_COMMON_CHECK_ID_DOC_H_

#include <cstddef>
#include <string>
#include <vector>

#include "common/check_id.h"
#include "common/strings.h"

namespace flowcheck {

struct IdRow {
  std::string id;
  std::string meaning;
};

template <typename Check, size_t N>
void AppendIdRows(const CheckId<Check> (&table)[N], std::vector<IdRow>* rows) {
  for (const CheckId<Check>& row : table) rows->push_back({row.id, row.meaning});
}

// The rows of every id table in `markdown`, in order, ids without their
// backticks. A row that does not have two cells is returned with its whole
// text as the id, so that it shows up as unexpected.
std::vector<IdRow> IdTableRows(std::string_view markdown);

// What differs between `rows` and the id tables of `markdown`, one line each:
// an id the doc lacks, an id only the doc has, a meaning that differs, an id
// listed twice. Empty when they agree.
std::vector<std::string> CompareIdTables(const std::vector<IdRow>& rows, std::string_view markdown);

}  // namespace flowcheck

#endif  // FLOWCHECK_COMMON_CHECK_ID_DOC_H_
