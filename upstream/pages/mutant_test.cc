// upstream/pages/mutant_test.cc: the checks catch real bugs injected into
// the kernel's text. Each mutant is tid_rdma.c with one exact edit
// (upstream/pages/BUILD, _MUTANTS), extracted and compiled like the real
// text; the same sweep and seeds that pass on the real text must fail on it,
// for the expected reason.
#include <string>

#include "gtest/gtest.h"
#include "upstream/pages/check.h"
#include "upstream/pages/examples.h"
#include "upstream/pages/real_kernel.h"
#include "upstream/pages/sweep.h"

// The mutants' entry points (kernel_pages.h again, with their prefixes).
#undef KERNEL_PAGES_PREFIX
#define KERNEL_PAGES_PREFIX mutant_4k_
#include "upstream/pages/kernel_pages.h"
#undef KERNEL_PAGES_PREFIX
#define KERNEL_PAGES_PREFIX mutant_8k_
#include "upstream/pages/kernel_pages.h"

namespace pages {
namespace {

const KernelPages kMutant4k{"mutant_4k",
                            mutant_4k_find_phys_blocks_4k,
                            mutant_4k_find_phys_blocks_8k,
                            mutant_4k_flush_pages,
                            mutant_4k_warn_count,
                            mutant_4k_warn_reset};
const KernelPages kMutant8k{"mutant_8k",
                            mutant_8k_find_phys_blocks_4k,
                            mutant_8k_find_phys_blocks_8k,
                            mutant_8k_flush_pages,
                            mutant_8k_warn_count,
                            mutant_8k_warn_reset};

// The first failing report over the seeds' cases, then the sweep's; "" if
// every case passes.
std::string FirstFailure(const KernelPages& k) {
  std::vector<Case> cases;
  for (const Example& e : Examples()) cases.push_back(e.c);
  for (const Case& c : SmallCases()) cases.push_back(c);
  for (const Case& c : cases) {
    const std::string r = CheckCase(k, c);
    if (!r.empty()) return r;
  }
  return "";
}

TEST(Mutants, TheRealTextPassesTheSameCases) { EXPECT_EQ(FirstFailure(RealKernel()), ""); }

TEST(Mutants, FourKStoppingOnePageEarlyIsCaughtByTheTilingRule) {
  const std::string r = FirstFailure(kMutant4k);
  EXPECT_EQ(r.rfind("P-tile:", 0), 0u) << r;
  EXPECT_NE(r.find("tid_rdma_find_phys_blocks_4k"), std::string::npos) << r;
  std::printf("mutant_4k caught:\n%s", r.c_str());
}

TEST(Mutants, EightKPairsThatNeverJoinAreCaughtByTheOracleAlone) {
  const std::string r = FirstFailure(kMutant8k);
  // Every rule still holds: only the comparison with the oracle sees it.
  EXPECT_EQ(r.rfind("ORACLE:", 0), 0u) << r;
  EXPECT_NE(r.find("tid_rdma_find_phys_blocks_8k"), std::string::npos) << r;
  std::printf("mutant_8k caught:\n%s", r.c_str());
}

}  // namespace
}  // namespace pages
