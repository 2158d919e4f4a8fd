// lockcheck/report.cc: report text, handlers, and one-report-per-violation.
#include "lockcheck/report.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "lockcheck/internal/classes.h"
#include "lockcheck/internal/reporting.h"
#include "lockcheck/internal/stack.h"
#include "lockcheck/internal/threads.h"
#include "lockcheck/internal/tsan.h"
#include "lockcheck/lockdep.h"

namespace lockcheck {
namespace {

void DefaultHandler(const Report& r) {
  std::string text = r.ToString();
  text += "all threads known to lockcheck:\n" + DescribeAllThreads();
  text += "lockcheck: aborting on the first violation (tests can install a "
          "lockcheck::RecordingHandler instead)\n";
  std::fputs(text.c_str(), stderr);
  std::fflush(stderr);
  std::abort();
}

// Relaxed: the handler is code; loading it must not order the reporting
// threads after the installing one (see internal/tsan.h).
std::atomic<ReportHandler> handler{&DefaultHandler};

// Constant-initialized globals, never function-local statics (see
// internal/tsan.h); the pointees are touched only under their mutex.
std::mutex claimed_mu;
std::set<std::tuple<int, int, int, const void*>>* claimed = nullptr;  // lazily made

std::mutex recorded_mu;
std::vector<Report>* recorded = nullptr;  // non-null while a recorder lives

}  // namespace

const char* RuleName(Rule rule) {
  const size_t i = static_cast<size_t>(rule);
  return i < static_cast<size_t>(Rule::kCount) ? kRuleIds[i].id : "unknown";
}

std::string Report::ToString() const {
  std::string s = "======== lockcheck: " + std::string(RuleName(rule)) + " on " +
                  lock_class + " ========\n";
  s += message;
  if (!s.empty() && s.back() != '\n') s += "\n";
  if (held.empty()) {
    s += thread + " held no locks.\n";
  } else {
    s += "locks held by " + thread + " (outermost first):\n";
    for (size_t i = 0; i < held.size(); ++i) {
      s += "  #" + std::to_string(i) + " " + held[i] + "\n";
    }
  }
  s += "stack of " + thread + ":\n" + stack;
  return s;
}

ReportHandler SetReportHandler(ReportHandler h) {
  return handler.exchange(h == nullptr ? &DefaultHandler : h,
                          std::memory_order_relaxed);
}

RecordingHandler::RecordingHandler() {
  {
    internal::IgnoredLockGuard guard(recorded_mu);
    recorded = new std::vector<Report>();
  }
  // A recording session sees every distinct violation from its start, even
  // one an earlier session (an earlier test in the binary) already reported.
  internal::ForgetReports();
  previous_ = SetReportHandler(&RecordingHandler::Record);
}

RecordingHandler::~RecordingHandler() {
  SetReportHandler(previous_);
  internal::IgnoredLockGuard guard(recorded_mu);
  delete recorded;
  recorded = nullptr;
}

// The recording mutex is taken inside a TsanIgnoreScope: two threads that
// both report must not become ordered by it.
void RecordingHandler::Record(const Report& r) {
  internal::IgnoredLockGuard guard(recorded_mu);
  if (recorded != nullptr) recorded->push_back(r);
}

std::vector<Report> RecordingHandler::reports() const {
  internal::IgnoredLockGuard guard(recorded_mu);
  return recorded != nullptr ? *recorded : std::vector<Report>();
}

int RecordingHandler::count(Rule rule) const {
  int n = 0;
  for (const Report& r : reports()) n += r.rule == rule;
  return n;
}

namespace internal {

bool ClaimReport(Rule rule, int a, int b, const void* site) {
  IgnoredLockGuard guard(claimed_mu);
  if (claimed == nullptr) claimed = new std::set<std::tuple<int, int, int, const void*>>();
  return claimed->emplace(static_cast<int>(rule), a, b, site).second;
}

void ForgetReports() {
  IgnoredLockGuard guard(claimed_mu);
  if (claimed != nullptr) claimed->clear();
}

std::string LockLabel(int cls, const void* lock) {
  char buf[64];
  std::snprintf(buf, sizeof buf, " (%p)", lock);
  return ClassName(cls) + std::string(buf);
}

Report NewReport(Rule rule, const void* lock, int cls) {
  Report r;
  r.rule = rule;
  r.lock = lock;
  r.lock_class = ClassName(cls);
  r.thread = CurrentThreadLabel();
  r.held = HeldLocksOfSelf();
  r.stack = FormatStack(CaptureStack(), "    ");
  return r;
}

void Deliver(const Report& report) {
  handler.load(std::memory_order_relaxed)(report);
}

}  // namespace internal
}  // namespace lockcheck
