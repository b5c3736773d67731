# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# srdma: the commands. The module itself is built by Kbuild (see Kbuild).
#
#   make                 build srdma.ko and the KUnit module against KDIR
#                        (default: the project's test kernel, built and cached
#                        by tools/kernel/build.sh on first use)
#   make KDIR=/lib/modules/$(uname -r)/build    build for this machine
#   make check           install what is missing, build, run every test;
#                        ends with "N passed, N failed"
#   make soak            the long runs and the rdma_rxe reference runs that
#                        make check leaves out (tools/soak.sh)
#   make demo            boot two VMs and show srdma as a user sees it
#   make bench           perftest on srdma and rdma_rxe in one VM of the plain
#                        kernel; table, target lines, results/bench/*.png
#                        (BENCH_QUICK=1: a short run)
#   make clean

KDIR ?=
FLAVOUR ?= debug

ifeq ($(KDIR),)
KDIR_CMD = "$$(tools/kernel/build.sh $(FLAVOUR))/build"
else
KDIR_CMD = "$(KDIR)"
endif

.PHONY: all modules check soak demo bench clean

all: modules

# .kdir names the kernel build the modules are for: tools/vm/run checks it.
modules:
	+kdir=$(KDIR_CMD) && $(MAKE) -C "$$kdir" M="$(CURDIR)" modules && \
		readlink -f "$$kdir" > .kdir

check:
	tools/check.sh

soak:
	tools/soak.sh

demo:
	tools/demo/demo.sh

bench:
	tools/bench/bench.sh

clean:
	rm -rf .tmp_versions Module.symvers modules.order .kdir
	find . \( -name '*.o' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' \
		-o -name '.*.cmd' -o -name 'modules.order' -o -name '.*.d' \) \
		-not -path './.git/*' -delete
