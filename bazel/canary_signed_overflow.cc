// Signed integer overflow (undefined behaviour). Only UBSan reports it; with
// -fno-sanitize-recover=all the report must abort the program.
#include <climits>
#include <cstdio>

int main(int argc, char** argv) {
  volatile int big = INT_MAX - 1 + argc;  // argc == 1: INT_MAX
  int sum = big + 1;                      // overflows
  std::printf("sum=%d\n", sum);
  return 0;
}
