// lockcheck/schedule_test.cc: SchedulePointNamed reaches the installed hook
// with kNamed and the label, and nothing happens without a hook.
#include "lockcheck/schedule.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace {

struct Call {
  lockcheck::SchedulePoint point;
  std::string label;
  void* arg;
};
std::vector<Call>* g_calls = nullptr;

void Record(lockcheck::SchedulePoint point, const void* lock, void* arg) {
  g_calls->push_back({point, static_cast<const char*>(lock), arg});
}

TEST(SchedulePointNamed, CallsTheHookWithTheLabel) {
  std::vector<Call> calls;
  g_calls = &calls;
  int arg = 0;
  lockcheck::SchedulePointNamed("before any hook");
  lockcheck::SetScheduleHook(&Record, &arg);
  lockcheck::SchedulePointNamed("first");
  lockcheck::SchedulePointNamed("second");
  lockcheck::SetScheduleHook(nullptr, nullptr);
  lockcheck::SchedulePointNamed("after the hook");
  g_calls = nullptr;
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].point, lockcheck::SchedulePoint::kNamed);
  EXPECT_EQ(calls[0].label, "first");
  EXPECT_EQ(calls[0].arg, &arg);
  EXPECT_EQ(calls[1].label, "second");
}

}  // namespace
