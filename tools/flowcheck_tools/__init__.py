"""What flowcheck's Python tools (campaign, self-test, fuzz benchmark) share.

  atomic     write_atomic(path, data): every artifact a tool writes
  bazel      build, bazel-bin, query by tag
  libfuzzer  a fuzz target's command line from its .options and .dict
  process    run a command in its own process group; stop a group
  markers    the one table of failure markers ("flowcheck: FAIL [...]", ...)
  corpus     a live corpus replaced only whole, recovered after any kill
  signature  a crash's one-line signature from a replay's output
  crashes    replaying a crash file; one kept per signature, the rest counted

The tools put tools/ on sys.path (they live there) and import
`from flowcheck_tools import ...`.
"""

import os

# The repository root: tools/flowcheck_tools/__init__.py is two levels down.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
