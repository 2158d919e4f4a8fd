// lockcheck/rule_ids_doc_test.cc: docs/lockcheck.md lists exactly the rules
// of kRuleIds, each with the table's meaning, and reports print those names.
#include <string>
#include <vector>

#include "common/atomic_file.h"
#include "common/check_id_doc.h"
#include "gmock/gmock-matchers.h"
#include "gmock/gmock-more-matchers.h"
#include "gtest/gtest.h"
#include "lockcheck/report.h"

namespace lockcheck {
namespace {

using ::testing::IsEmpty;

TEST(RuleIdsDoc, LockcheckMdListsEveryRuleWithItsMeaning) {
  std::vector<flowcheck::IdRow> rows;
  flowcheck::AppendIdRows(kRuleIds, &rows);
  std::string doc;
  ASSERT_TRUE(flowcheck::ReadWholeFile("docs/lockcheck.md", &doc));
  EXPECT_THAT(flowcheck::CompareIdTables(rows, doc), IsEmpty());
}

TEST(RuleIdsDoc, RuleNameIsTheTablesId) {
  EXPECT_STREQ(RuleName(Rule::kOrderInversion), "lock-order-inversion");
  EXPECT_STREQ(RuleName(Rule::kIrqSafeToUnsafe), "irq-safe-to-irq-unsafe-lock-order");
  EXPECT_STREQ(RuleName(Rule::kCount), "unknown");
}

// A drifted doc is noticed: a rule's meaning changed, one missing.
TEST(RuleIdsDoc, ADriftedDocIsNoticed) {
  std::vector<flowcheck::IdRow> rows;
  flowcheck::AppendIdRows(kRuleIds, &rows);
  const std::string doc =
      "| Id | Meaning | `Rule::` | After |\n|---|---|---|---|\n"
      "| `unlock-of-unheld-lock` | something else | `kUnlockNotHeld` | skipped |\n";
  const std::vector<std::string> diff = flowcheck::CompareIdTables(rows, doc);
  ASSERT_EQ(diff.size(), static_cast<size_t>(Rule::kCount));
  EXPECT_EQ(diff[0],
            "id \"unlock-of-unheld-lock\": the doc says \"something else\", the table \"unlock "
            "of a lock no thread holds\"");
}

}  // namespace
}  // namespace lockcheck
