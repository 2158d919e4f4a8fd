# upstream/profiles/hfi1.profile: the hfi1 driver (Linux mainline, Debian's
# linux-source-6.1), upstream mode's default profile (--config=upstream).
# The harness's names are hfi1's, so there is nothing to map: the kernel's
# text and upstream/functions.txt use the same identifiers.
# The format is described in upstream/profiles/README.md.

name hfi1
dir drivers/infiniband/hw/hfi1
