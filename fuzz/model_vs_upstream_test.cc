// fuzz/model_vs_upstream_test.cc: the differential target's failures go
// through the fuzz executor like any other: a mirror that skips one call
// (core's model missing a clear) fails the program at that op's index, with
// the field named; with core's model unchanged the same program passes.
// --config=upstream only (the kernel's text is //core:core there).
#include <memory>
#include <string>
#include <vector>

#include "core/oracle/lockstep.h"
#include "fuzz/executor.h"
#include "fuzz/executor/lockstep_pool.h"
#include "fuzz/input_format.h"
#include "gtest/gtest.h"
#include "upstream/diff/model_mirror.h"

namespace flowcheck {
namespace fuzz {
namespace {

using oracle::Lockstep;
using oracle::Op;
using oracle::OpKind;
using diff::DifferentialLines;

// Forwards to core's model but drops the first clear_hw_flow of a program.
class SkipFirstClear : public Lockstep::Mirror {
 public:
  explicit SkipFirstClear(std::unique_ptr<Lockstep::Mirror> inner) : inner_(std::move(inner)) {}
  const char* name() const override { return inner_->name(); }
  void Reset(uint64_t seed) override {
    skipped_ = false;
    inner_->Reset(seed);
  }
  int64_t Step(const Op& op) override {
    if (op.kind == OpKind::kClearHwFlow && !skipped_) {
      skipped_ = true;
      return 0;
    }
    return inner_->Step(op);
  }
  void Compare(Lockstep& model, std::vector<std::string>* diffs) override {
    inner_->Compare(model, diffs);
  }

 private:
  std::unique_ptr<Lockstep::Mirror> inner_;
  bool skipped_ = false;
};

TEST(ModelVsUpstream, AFailureNamesTheOpIndexAndTheField) {
  
  Program p;
  p.format = Format::kFlow;
  p.version = 1;
  p.num_qps = 2;
  p.seed = 7;
  p.ops = {MakeOp(FlowOp::kSetup, 0, 0, 0), MakeOp(FlowOp::kSetup, 0, 1, 0),
           MakeOp(FlowOp::kClear, 0, 0, 0), MakeOp(FlowOp::kClear, 0, 1, 0)};
  Lockstep& ls = PooledLockstep(p.num_qps, p.seed);
  SkipFirstClear mirror(diff::MakeCoreModelMirror(p.num_qps, p.seed));
  ls.set_mirror(&mirror);
  const ExecResult r = Execute(p, ExecOptions());
  ls.set_mirror(nullptr);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.failure.op_index, 2u);
  const std::vector<std::string> lines = DifferentialLines(r.failure.diffs);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], "differential: flow_mask: kernel 0x2, core 0x3");
  EXPECT_NE(FailureReport(p, r.failure).find("op #2"), std::string::npos);

  // The same program with core's model unchanged passes.
  std::unique_ptr<Lockstep::Mirror> plain = diff::MakeCoreModelMirror(p.num_qps, p.seed);
  ls.set_mirror(plain.get());
  const ExecResult ok = Execute(p, ExecOptions());
  ls.set_mirror(nullptr);
  EXPECT_TRUE(ok.ok) << FailureReport(p, ok.failure);
}

}  // namespace
}  // namespace fuzz
}  // namespace flowcheck
