// lockcheck/schedule_point_benchmark.cc: what a named schedule point costs
// when no hook is installed (every run but a controlled one): core's
// test_and_set_bit + clear_bit pair, with lockcheck::SchedulePointNamed
// before each read-modify-write as core/bitops.h has it, against the same two
// atomics without, alternating in one process (15 rounds; median ratio).
//
//   bazel run -c opt //lockcheck:schedule_point_benchmark
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "lockcheck/schedule.h"

namespace {

__attribute__((noinline)) unsigned long Plain(unsigned long* w, int n) {
  unsigned long s = 0;
  for (int i = 0; i < n; ++i) {
    const unsigned long m = 1UL << (i & 31);
    s += (__atomic_fetch_or(w, m, __ATOMIC_SEQ_CST) & m) != 0;
    __atomic_fetch_and(w, ~m, __ATOMIC_RELAXED);
  }
  return s;
}

__attribute__((noinline)) unsigned long WithPoints(unsigned long* w, int n) {
  unsigned long s = 0;
  for (int i = 0; i < n; ++i) {
    const unsigned long m = 1UL << (i & 31);
    lockcheck::SchedulePointNamed("test_and_set_bit");
    s += (__atomic_fetch_or(w, m, __ATOMIC_SEQ_CST) & m) != 0;
    lockcheck::SchedulePointNamed("clear_bit");
    __atomic_fetch_and(w, ~m, __ATOMIC_RELAXED);
  }
  return s;
}

double NsPerPair(unsigned long (*f)(unsigned long*, int), unsigned long* w, int n) {
  const auto t0 = std::chrono::steady_clock::now();
  f(w, n);
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() /
         n;
}

}  // namespace

int main() {
  unsigned long w = 0;
  constexpr int kPairs = 20000000, kRounds = 15;
  std::vector<double> ratios, plain, points;
  for (int r = 0; r < kRounds; ++r) {
    plain.push_back(NsPerPair(Plain, &w, kPairs));
    points.push_back(NsPerPair(WithPoints, &w, kPairs));
    ratios.push_back(points.back() / plain.back());
  }
  std::sort(ratios.begin(), ratios.end());
  std::sort(plain.begin(), plain.end());
  std::sort(points.begin(), points.end());
  std::printf("set+clear pair, no hook installed (checks %s): plain %.2f ns, with schedule points "
              "%.2f ns (medians of %d rounds); median ratio %.3fx\n",
              lockcheck::kChecksEnabled ? "on" : "off", plain[kRounds / 2], points[kRounds / 2],
              kRounds, ratios[kRounds / 2]);
  return 0;
}
