// program/testdata/test_op_rows.h: the row //program:op_table_test adds to the
// op table (program/op_list.h) in a test build of the engine
// (//program:program_with_test_op, which defines FLOWCHECK_TEST_OP_ROWS):
// an op no other file of the engine names. Its runner, RunTestNudge, is
// program/testdata/test_op_runner.cc; nothing else was written for it.
#ifndef FLOWCHECK_PROGRAM_TESTDATA_TEST_OP_ROWS_H_
#define FLOWCHECK_PROGRAM_TESTDATA_TEST_OP_ROWS_H_

#include <atomic>

// test_nudge@SLOT: the RcvArray allocator waking the head of rarr_queue
// (caller_rarr_release), on a QP that owns a flow.
#define FLOWCHECK_TEST_OPS(X)                                \
  X(TestNudge, "test_nudge", kSlot, kOwned | kRarr, kUnchanged, 0, \
    kAfter, FLOWCHECK_CALL(RarrRelease))

namespace flowcheck {
namespace program {
// How many times RunTestNudge ran (the test reads it).
extern std::atomic<int> g_test_nudges;
}  // namespace program
}  // namespace flowcheck

#endif  // FLOWCHECK_PROGRAM_TESTDATA_TEST_OP_ROWS_H_
