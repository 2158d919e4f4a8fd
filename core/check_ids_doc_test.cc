// core/check_ids_doc_test.cc: docs/core.md lists exactly core's ids -
// CheckInvariants' (kInvariantIds) and the reference properties'
// (kPropertyIds) - each with the table's one-line meaning; and the
// comparison itself notices a drifted doc.
#include <set>
#include <string>
#include <vector>

#include "common/check_id.h"
#include "common/atomic_file.h"
#include "common/check_id_doc.h"
#include "common/strings.h"
#include "core/invariants.h"
#include "core/reference.h"
#include "gmock/gmock-matchers.h"
#include "gmock/gmock-more-matchers.h"
#include "gtest/gtest.h"

namespace flowcheck {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(CheckIdsDoc, CoreMdListsEveryCoreIdWithItsMeaning) {
  std::vector<IdRow> rows;
  AppendIdRows(kInvariantIds, &rows);
  AppendIdRows(reference::kPropertyIds, &rows);
  std::string doc;
  ASSERT_TRUE(ReadWholeFile("docs/core.md", &doc));
  EXPECT_THAT(CompareIdTables(rows, doc), IsEmpty());
}

// The ids of the rows of docs/kernel-invariants.md's tables that have a
// "Checked by" column: the rules flowcheck claims to check.
std::set<std::string> CheckedRuleIds(const std::string& doc) {
  std::set<std::string> ids;
  bool checked_table = false;
  for (std::string_view line : flowcheck::StrSplit(doc, '\n')) {
    if (!flowcheck::StartsWith(line, "|")) {
      checked_table = false;
      continue;
    }
    if (flowcheck::StartsWith(line, "| Id |")) {
      checked_table = flowcheck::StrContains(line, "| Checked by |");
      continue;
    }
    std::vector<std::string_view> cells = flowcheck::StrSplit(line, '|');
    if (checked_table && cells.size() > 2) {
      std::string id(flowcheck::StripAsciiWhitespace(cells[1]));
      if (!id.empty() && id.find('-') == std::string::npos) ids.insert(id);
    }
  }
  return ids;
}

TEST(CheckIdsDoc, KernelInvariantsMdChecksExactlyCoreInvariantIds) {
  std::string doc;
  ASSERT_TRUE(ReadWholeFile("docs/kernel-invariants.md", &doc));
  // CheckInvariants' rule families (F, W); ARG (argument checks) is no
  // kernel rule, and the L rules are lockcheck's (lock_contract_test).
  std::set<std::string> core;
  std::set<char> families;
  for (const auto& row : kInvariantIds) {
    if (std::string(row.id) == "ARG") continue;
    core.insert(row.id);
    families.insert(row.id[0]);
  }
  std::set<std::string> doc_ids;
  for (const std::string& id : CheckedRuleIds(doc)) {
    if (families.count(id[0])) doc_ids.insert(id);
  }
  EXPECT_EQ(doc_ids, core)
      << "docs/kernel-invariants.md's tables with a 'Checked by' column must list exactly "
         "CheckInvariants' F and W ids (core/invariants.h kInvariantIds)";
}

TEST(CheckIdsDoc, CheckedRuleIdsReadsOnlyCheckedTables) {
  EXPECT_EQ(CheckedRuleIds("| Id | Rule | Checked by |\n|---|---|---|\n| F1 | r | x |\n\n"
                           "| Id | Rule |\n|---|---|\n| G1 | r |\n"),
            (std::set<std::string>{"F1"}));
}

enum class Toy { kA, kB, kCount };
constexpr CheckId<Toy> kToy[] = {{Toy::kA, "A1", "a is wrong"}, {Toy::kB, "b-b", "b is wrong"}};
static_assert(WellFormedIdTable(kToy), "");

TEST(CheckIdsDoc, TheComparisonNoticesEveryKindOfDrift) {
  std::vector<IdRow> rows;
  AppendIdRows(kToy, &rows);
  const std::string good =
      "text\n| Id | Meaning |\n|---|---|\n| `A1` | a is wrong |\n| `b-b` | b is wrong |\nmore\n";
  EXPECT_THAT(CompareIdTables(rows, good), IsEmpty());
  // Split over two tables is fine; rows of other tables are not id rows.
  EXPECT_THAT(CompareIdTables(rows, "| Id | Meaning |\n|---|---|\n| `A1` | a is wrong |\n\n"
                                    "| Other | Table |\n| `x` | y |\n"
                                    "| Id | Meaning |\n|---|---|\n| `b-b` | b is wrong |\n"),
              IsEmpty());
  EXPECT_THAT(CompareIdTables(rows, "| Id | Meaning |\n|---|---|\n| `A1` | a is wrong |\n"),
              ElementsAre("the doc lacks \"| `b-b` | b is wrong |\""));
  EXPECT_THAT(
      CompareIdTables(rows, "| Id | Meaning |\n|---|---|\n| `A1` | a is bad |\n| `b-b` | b is wrong |\n"),
      ElementsAre("id \"A1\": the doc says \"a is bad\", the table \"a is wrong\""));
  EXPECT_THAT(CompareIdTables(rows, good + "| Id | Meaning |\n| `C` | gone |\n| `A1` | a is wrong |\n"),
              ElementsAre("the doc lists id \"A1\" twice",
                          "the doc lists id \"C\" (gone), which no table has"));
}

TEST(CheckIdsDoc, IdTablesAreWellFormedAndDisjoint) {
  // Also static_asserted where the tables are declared; repeated here so a
  // failure reads as a test failure too.
  EXPECT_TRUE(WellFormedIdTable(kInvariantIds));
  EXPECT_TRUE(WellFormedIdTable(reference::kPropertyIds));
  EXPECT_TRUE(DisjointIds(kInvariantIds, reference::kPropertyIds));
  EXPECT_STREQ(IdOf(kInvariantIds, Invariant::kW5), "W5");
  EXPECT_STREQ(IdOf(kInvariantIds, Invariant::kArg), "ARG");
  constexpr CheckId<Toy> kSwapped[] = {{Toy::kB, "b", "x"}, {Toy::kA, "a", "x"}};
  constexpr CheckId<Toy> kTwice[] = {{Toy::kA, "a", "x"}, {Toy::kB, "a", "x"}};
  constexpr CheckId<Toy> kSpace[] = {{Toy::kA, "a 1", "x"}, {Toy::kB, "b", "x"}};
  constexpr CheckId<Toy> kBracket[] = {{Toy::kA, "a]", "x"}, {Toy::kB, "b", "x"}};
  constexpr CheckId<Toy> kBar[] = {{Toy::kA, "a", "x | y"}, {Toy::kB, "b", "x"}};
  constexpr CheckId<Toy> kShort[] = {{Toy::kA, "a", "x"}};
  EXPECT_FALSE(WellFormedIdTable(kSwapped));
  EXPECT_FALSE(WellFormedIdTable(kTwice));
  EXPECT_FALSE(WellFormedIdTable(kSpace));
  EXPECT_FALSE(WellFormedIdTable(kBracket));
  EXPECT_FALSE(WellFormedIdTable(kBar));
  EXPECT_FALSE(WellFormedIdTable(kShort));
  constexpr CheckId<Toy> kSharesA1[] = {{Toy::kA, "z", "x"}, {Toy::kB, "A1", "x"}};
  EXPECT_TRUE(DisjointIds(kToy, kSwapped));
  EXPECT_FALSE(DisjointIds(kToy, kSharesA1));
}

}  // namespace
}  // namespace flowcheck
