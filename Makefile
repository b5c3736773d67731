# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# srdma: the commands. The module itself is built by Kbuild (see Kbuild).
#
#   make                 build srdma.ko and the KUnit module against KDIR
#                        (default: the project's test kernel, built and cached
#                        by tools/kernel/build.sh on first use)
#   make KLINE=6.12      the same against the 6.12 line's test kernel
#                        (default 6.1, or $SRDMA_KERNEL_LINE)
#   make KDIR=/lib/modules/$(uname -r)/build    build for this machine
#   make check           install what is missing, build, run every test;
#                        ends with "N passed, N failed"
#   make soak            the long runs and the rdma_rxe reference runs that
#                        make check leaves out (tools/soak.sh)
#   make demo            boot two VMs and show srdma as a user sees it
#   make bench           perftest on srdma and rdma_rxe in one VM of the plain
#                        kernel; table, target lines, results/bench/*.png
#                        (BENCH_QUICK=1: a short run)
#   make install         build srdma.ko for KVER (default: the running
#                        kernel, from /lib/modules/KVER/build), install it in
#                        /lib/modules/KVER/updates/, run depmod, install the
#                        srdma-rate tool and its manual under PREFIX
#                        (/usr/local); DESTDIR to stage elsewhere
#   make uninstall       remove what make install installed
#   make deb             the Debian package srdma-dkms (results/deb/):
#                        DKMS builds srdma.ko for every installed kernel
#   make distro-test     srdma from srdma-dkms's source on Debian's own 6.1
#                        and 6.12 kernels, two VMs each (tools/distro/test.sh)
#   make clean

KDIR ?=
FLAVOUR ?= debug
KLINE ?=

ifeq ($(KDIR),)
KDIR_CMD = "$$(tools/kernel/build.sh $(FLAVOUR) $(KLINE))/build"
else
KDIR_CMD = "$(KDIR)"
endif

# make install: the running kernel's build tree, or KVER's
KVER ?= $(shell uname -r)
PREFIX ?= /usr/local
INSTALL_KDIR = $(if $(KDIR),$(KDIR),/lib/modules/$(KVER)/build)
SRDMA_KO = $(DESTDIR)/lib/modules/$(KVER)/updates/srdma/srdma.ko

.PHONY: all modules check soak demo bench clean install uninstall deb distro-test

all: modules

# .kdir names the kernel build the modules are for: tools/vm/run checks it.
modules:
	+kdir=$(KDIR_CMD) && $(MAKE) -C "$$kdir" M="$(CURDIR)" modules && \
		readlink -f "$$kdir" > .kdir

check:
	tools/check.sh

# the objects are then KVER's, not the test kernel's: .kdir goes
install:
	rm -f .kdir
	$(MAKE) -C "$(INSTALL_KDIR)" M="$(CURDIR)" SRDMA_KUNIT=n modules
	install -D -m 0644 drivers/infiniband/sw/srdma/srdma.ko "$(SRDMA_KO)"
	if [ -z "$(DESTDIR)" ]; then depmod -a "$(KVER)"; fi
	$(MAKE) -C tools/srdma-rate
	install -D -m 0755 tools/srdma-rate/srdma-rate "$(DESTDIR)$(PREFIX)/sbin/srdma-rate"
	install -D -m 0644 Documentation/srdma-rate.md \
		"$(DESTDIR)$(PREFIX)/share/doc/srdma/srdma-rate.md"

uninstall:
	rm -f "$(SRDMA_KO)" "$(DESTDIR)$(PREFIX)/sbin/srdma-rate" \
		"$(DESTDIR)$(PREFIX)/share/doc/srdma/srdma-rate.md"
	-rmdir "$(DESTDIR)/lib/modules/$(KVER)/updates/srdma" \
		"$(DESTDIR)$(PREFIX)/share/doc/srdma" 2> /dev/null
	if [ -z "$(DESTDIR)" ]; then depmod -a "$(KVER)"; fi

deb:
	tools/deb/build.sh

distro-test:
	tools/distro/test.sh

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
