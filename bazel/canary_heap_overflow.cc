// A one-byte heap over-read. Only AddressSanitizer reports it; without ASan
// the program reads the allocator's slack and exits 0.
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  // The index depends on argc so the compiler cannot prove the bug statically.
  char* buf = static_cast<char*>(std::malloc(16));
  for (int i = 0; i < 16; ++i) buf[i] = static_cast<char>(i);
  volatile char c = buf[15 + argc];  // argc == 1: reads buf[16]
  std::printf("read %d\n", c);
  std::free(buf);
  return 0;
}
