// Compiled-in sanitizer defaults, linked into every binary and test of the
// sanitizer configs (see .bazelrc, --custom_malloc), so they hold also for a
// binary started straight from bazel-bin/, where --test_env does not reach.
// The runtimes look these weak hooks up at start-up; environment variables
// (TSAN_OPTIONS, ...) still override them option by option.

extern "C" {

// Abseil 20220623's absl::Mutex hides its internal hand-off from TSan; LLVM
// 14's runtime then reports a false race between Waiter::Post() and the mmap
// that created the waiting thread's identity (abseil-cpp#1239). flowcheck's
// own locks never use absl::Mutex (lockcheck is built on std::atomic) and
// tools/lint.sh keeps absl/synchronization out of our code; this one-frame
// suppression only guards Abseil-internal uses (the flag registry).
// It is deliberately not report_atomic_races=0, which would hide real races.
__attribute__((used, visibility("default"))) const char*
__tsan_default_suppressions() {
  return "race:absl::*synchronization_internal::Waiter::Post\n";
}

// halt_on_error: the first report ends the run (a fuzzer then writes the
// right crash file); second_deadlock_stack: both stacks of a lock inversion.
__attribute__((used, visibility("default"))) const char*
__tsan_default_options() {
  return "halt_on_error=1:second_deadlock_stack=1:history_size=4";
}

__attribute__((used, visibility("default"))) const char*
__asan_default_options() {
  return "detect_stack_use_after_return=1:strict_string_checks=1:"
         "detect_leaks=1";
}

__attribute__((used, visibility("default"))) const char*
__ubsan_default_options() {
  return "print_stacktrace=1:halt_on_error=1";
}

}  // extern "C"
