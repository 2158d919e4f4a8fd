// fuzz/reproduce_main.cc: //fuzz:reproduce, the reproduce command
// (tools/reproduce.sh builds and runs it).
//
//   reproduce [--target=NAME] [--strict] [--emit_gtest=PATH] [--schedule_out=PATH] FILE
//
// Reads a fuzz input (a crash file, a corpus or regression file), detects its
// target from the header (--target only double-checks it), prints the decoded
// ops one per line, replays them with a trace (each call, both results, the
// flow_mask before -> after), and on failure the failing step, the oracle
// differences or invariant violations and the bitmap before and after.
// The output is a function of the file's bytes and the flags only. It reads
// at most MaxUsefulInputBytes() of the file: what lies beyond, the decoder
// would ignore anyway (it is counted, not read).
//
// Exit status: 1 the failure reproduced; 0 the input passes (said so);
// 2 the input is unusable (missing, empty, truncated, foreign, no decoder
// for its version; the message says which) or the flags are wrong
// (--emit_gtest naming the input itself included); 4 the GoogleTest file
// could not be written. (tools/reproduce.sh adds 3: it could not build this.)
// Errors go to stderr, the listing and the trace to stdout.
//
// --strict         upstream divergences ([R-1], [R-3], [R-7]) fail too, as
//                  with FLOWCHECK_FUZZ_STRICT=1 in the fuzz targets.
// --emit_gtest=P   also writes P, atomically: a self-contained GoogleTest
//                  source that decodes the same bytes and expects success, so
//                  it fails while the bug is there (fuzz/gtest_source.h).
// --schedule_out=P a sched_fuzz input only: a failure also writes its
//                  schedule file to P (a file or a directory): a stress
//                  schedule holding the same program and its interleaving,
//                  which //stress:stress_main replays, minimizes and draws
//                  (tools/reproduce.sh --minimize / --timeline on a
//                  sched_fuzz input run both steps); exit 3 if it could not
//                  be written.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "common/atomic_file.h"
#include "common/strings.h"
#include "fuzz/executor.h"
#include "fuzz/gtest_source.h"
#include "fuzz/input_format.h"
#include "fuzz/sched_fuzz_reproduce.h"

namespace flowcheck {
namespace fuzz {
namespace {

constexpr int kReproduced = 1, kPasses = 0, kUnusable = 2, kCannotWrite = 4;

struct Flags {
  std::string target, emit_gtest, schedule_out, file;
  bool strict = false;
};

int Usage(const std::string& why) {
  std::fprintf(stderr,
               "reproduce: %s\nusage: reproduce [--target=NAME] [--strict] "
               "[--emit_gtest=PATH] [--schedule_out=PATH] FILE\n"
               "       reproduce --replay=SCHEDULE [--minimize] [--trace_out=T.json]\n",
               why.c_str());
  return kUnusable;
}

int Unusable(const std::string& why) {
  std::fprintf(stderr, "reproduce: %s\n", why.c_str());
  return kUnusable;
}

// Reads the first min(size, MaxUsefulInputBytes()) bytes of a regular file;
// *size is the file's size.
bool ReadInput(const std::string& path, std::vector<uint8_t>* out, uint64_t* size,
               std::string* error) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    *error = flowcheck::StrFormat("cannot read %s: %s", path.c_str(), std::strerror(errno));
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    *error = flowcheck::StrFormat("%s is not a regular file", path.c_str());
    return false;
  }
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    *error = flowcheck::StrFormat("cannot read %s: %s", path.c_str(), std::strerror(errno));
    return false;
  }
  *size = static_cast<uint64_t>(st.st_size);
  out->resize(std::min<uint64_t>(*size, MaxUsefulInputBytes()));
  const size_t got = std::fread(out->data(), 1, out->size(), f);
  const int err = std::ferror(f) ? errno : 0;
  std::fclose(f);
  if (got != out->size()) {  // the file shrank, or a read error
    *error = flowcheck::StrFormat("cannot read %s: %s", path.c_str(),
                                  err != 0 ? std::strerror(err) : "it is shorter than its size");
    return false;
  }
  return true;
}

// True if `a` and `b` name one existing file (through links too).
bool SameFile(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  return stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

std::string Basename(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

void PrintStep(const Program& p, const StepRecord& s) {
  std::string line = flowcheck::StrFormat(
      "  #%-3zu %s%s", s.op_index, (s.sub ? flowcheck::StrFormat("[%d] ", s.sub + 1) : "").c_str(),
      s.call.c_str());
  if (s.called)
    line += flowcheck::StrFormat(" -> model %" PRId64 ", %s %" PRId64, s.model_ret,
                                 p.format == Format::kPure ? "reference" : "oracle", s.oracle_ret);
  if (p.format != Format::kPure || s.mask_before != 0 || s.mask_after != 0) {
    line += flowcheck::StrFormat("   flow_mask 0x%08" PRIx64 " -> 0x%08" PRIx64, s.mask_before,
                                 s.mask_after);
  }
  std::printf("%s\n", line.c_str());
  for (const std::string& v : s.new_divergences) std::printf("        found: %s\n", v.c_str());
  std::fflush(stdout);
}

int Run(const Flags& flags) {
  if (!flags.emit_gtest.empty() &&
      (flags.emit_gtest == flags.file || SameFile(flags.emit_gtest, flags.file))) {
    return Usage(
        flowcheck::StrFormat("--emit_gtest=%s is the input file itself; refusing to overwrite "
                             "it (name another path for the GoogleTest source)",
                             flags.emit_gtest.c_str()));
  }
  std::vector<uint8_t> bytes;
  uint64_t size = 0;
  std::string error;
  if (!ReadInput(flags.file, &bytes, &size, &error)) return Unusable(error);
  std::printf("reproduce: %s (%llu bytes)%s\n", flags.file.c_str(),
              static_cast<unsigned long long>(size),
              flags.strict ? ", strict: upstream divergences fail" : "");
  const DecodeResult d = DecodePrefix(bytes.data(), bytes.size(), size);
  if (!d.ok()) return Unusable(d.error);
  const Program& p = d.program;
  if (!flags.target.empty()) {
    Format wanted;
    if (!FormatForTarget(flags.target, &wanted)) {
      return Usage("unknown --target " + flags.target +
                   " (reserve_fuzz, flow_fuzz, pure_fuzz or sched_fuzz)");
    }
    if (wanted != p.format) {
      return Unusable(flowcheck::StrFormat("the file is a %s input (header '%c'), not %s",
                                           TargetName(p.format), static_cast<char>(p.format),
                                           TargetName(wanted)));
    }
  }
  std::printf("input: %s\n", DescribeProgram(p).c_str());
  if (p.format == Format::kSched) {  // concurrent: its own listing and trace
    if (!flags.emit_gtest.empty()) return Usage("--emit_gtest does not take sched_fuzz inputs");
    return ReproduceSched(p, flags.strict, flags.schedule_out);
  }
  if (!flags.schedule_out.empty()) {
    return Usage("--schedule_out takes sched_fuzz inputs only (the others run no schedule)");
  }
  std::printf("decoded ops:\n");
  for (size_t i = 0; i < p.ops.size(); ++i) {
    std::printf("  #%-3zu %s\n", i, DescribeOp(p.format, p.ops[i]).c_str());
  }
  std::printf("replay (each call: model/oracle results, the model's flow_mask before -> after):\n");
  std::fflush(stdout);  // a crash in the model (ASan, lockcheck) keeps what came before
  ExecOptions options;
  options.strict = flags.strict;
  options.on_step = [&p](const StepRecord& s) { PrintStep(p, s); };
  const ExecResult r = Execute(p, options);
  GtestCase gtest{Basename(flags.file), flags.strict, bytes, size, "nothing (the input passed)"};
  if (!r.ok) {
    const std::string report = FailureReport(p, r.failure);
    std::printf("\n%s", report.c_str());
    gtest.outcome = report.substr(0, report.find('\n'));
    std::printf("\nresult: REPRODUCED at op #%zu after %zu call(s) (exit %d)\n", r.failure.op_index,
                r.calls, kReproduced);
  } else {
    std::printf(
        "\nresult: the input PASSES: %zu call(s), the model agreed with the %s and every "
        "invariant held (exit %d)\n",
        r.calls, p.format == Format::kPure ? "reference" : "oracle", kPasses);
    if (r.divergent_steps > 0 && !flags.strict) {
      std::printf(
          "note: upstream divergences (the kernel's own hazards) held after %zu call(s); "
          "--strict makes them failures\n",
          r.divergent_steps);
    }
  }
  if (!flags.emit_gtest.empty()) {
    std::fflush(stdout);
    const std::string werr = WriteFileAtomically(flags.emit_gtest, GtestSource(gtest));
    if (!werr.empty()) {
      std::fprintf(stderr, "reproduce: %s\n", werr.c_str());
      return kCannotWrite;
    }
    std::printf("wrote the GoogleTest case %s (test FlowcheckReproduce.%s)\n",
                flags.emit_gtest.c_str(), GtestName(gtest.input_name).c_str());
  }
  return r.ok ? kPasses : kReproduced;
}

}  // namespace
}  // namespace fuzz
}  // namespace flowcheck

int main(int argc, char** argv) {
  using flowcheck::ResolveUserPath;
  using flowcheck::fuzz::Flags;
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--target=", 0) == 0) {
      flags.target = a.substr(9);
    } else if (a.rfind("--emit_gtest=", 0) == 0) {
      flags.emit_gtest = ResolveUserPath(a.substr(13));
      if (a.size() == 13) return flowcheck::fuzz::Usage("--emit_gtest= needs a path");
    } else if (a.rfind("--schedule_out=", 0) == 0) {
      flags.schedule_out = ResolveUserPath(a.substr(15));
      if (a.size() == 15) return flowcheck::fuzz::Usage("--schedule_out= needs a path");
    } else if (a == "--strict") {
      flags.strict = true;
    } else if (a.rfind("-", 0) == 0 && a != "-") {
      return flowcheck::fuzz::Usage("unknown flag " + a);
    } else if (flags.file.empty()) {
      flags.file = ResolveUserPath(a);
    } else {
      return flowcheck::fuzz::Usage("more than one input file");
    }
  }
  if (flags.file.empty()) return flowcheck::fuzz::Usage("no input file");
  return flowcheck::fuzz::Run(flags);
}
