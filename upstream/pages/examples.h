// upstream/pages/examples.h: the worked examples of docs/upstream.md ("The
// page helpers"), each a case and the result the rules give for it, worked
// out by hand. They are the fuzz target's seeds (make_seeds writes
// corpus/pages_fuzz/seed-<name>), the oracle's unit test
// (//upstream/pages:oracle_test) and, in upstream mode, the kernel's
// (//upstream/pages:kernel_examples_test).
#ifndef FLOWCHECK_UPSTREAM_PAGES_EXAMPLES_H_
#define FLOWCHECK_UPSTREAM_PAGES_EXAMPLES_H_

#include <string>
#include <vector>

#include "upstream/pages/check.h"

namespace pages {

struct Example {
  std::string name;  // the seed file is seed-<name> (examples sharing bytes share one)
  Case c;
  std::string want;  // Describe() of the result (tid_flush_pages: the sets it appends)
};

std::vector<Example> Examples();

}  // namespace pages

#endif  // FLOWCHECK_UPSTREAM_PAGES_EXAMPLES_H_
