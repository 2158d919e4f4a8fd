// fuzz/hazard_ids_doc_test.cc: docs/fuzz.md lists exactly the hazards of
// kHazardIds, each with the table's meaning; a hazard's failure kind is
// "hazard <id>" (what reproduce and the campaign's signatures read).
#include <string>
#include <vector>

#include "common/check_id_doc.h"
#include "fuzz/executor/hazards.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace flowcheck {
namespace fuzz {
namespace {

using ::testing::IsEmpty;

TEST(HazardIdsDoc, FuzzMdListsEveryHazardWithItsMeaning) {
  std::vector<IdRow> rows;
  AppendIdRows(kHazardIds, &rows);
  std::string doc;
  ASSERT_TRUE(ReadTextFile("docs/fuzz.md", &doc));
  EXPECT_THAT(CompareIdTables(rows, doc), IsEmpty());
}

TEST(HazardIdsDoc, TheKindNamesTheId) {
  EXPECT_EQ(HazardKind(Hazard::kFlushStrandsWaiter), "hazard flush-strands-waiter");
}

}  // namespace
}  // namespace fuzz
}  // namespace flowcheck
