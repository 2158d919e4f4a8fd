// sched/examples_main.cc: the command line (cli.h) over the example
// scenarios of examples.cc.
#include "sched/cli.h"

int main(int argc, char** argv) { return sched::Main(argc, argv, "//sched:sched_examples"); }
