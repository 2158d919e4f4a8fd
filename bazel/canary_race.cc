// A real data race: two threads increment a plain int without any lock.
// Only ThreadSanitizer reports it; without TSan the program exits 0.
#include <cstdio>
#include <thread>

namespace {
int counter = 0;  // deliberately unsynchronized

void Bump() {
  for (int i = 0; i < 100000; ++i) {
    int v = counter;
    counter = v + 1;
  }
}
}  // namespace

int main() {
  std::thread a(Bump);
  std::thread b(Bump);
  a.join();
  b.join();
  std::printf("counter=%d\n", counter);
  return 0;
}
