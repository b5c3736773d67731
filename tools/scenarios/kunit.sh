#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Load the KUnit module and save its KTAP output for the host to parse
# (tools/check.sh does, with the kernel tree's kunit.py).
. "$(dirname "$0")/lib.sh"

# The kernel log holds the full KTAP of the module's suites (6.1's debugfs
# results lose the lines of parameterized cases).
dmesg -C
check "modprobe srdma_test (runs the suites)" modprobe srdma_test
check "every srdma suite reported" test "$(ls -d /sys/kernel/debug/kunit/srdma_* | wc -l)" -gt 0
dmesg > "$SRDMA_RESULTS/kunit.log"
check_match "the kernel log holds the KTAP" '^(\[[ 0-9.]+\])?[[:space:]]*KTAP version 1' \
	cat "$SRDMA_RESULTS/kunit.log"
check "rmmod srdma_test srdma" rmmod srdma_test srdma
finish
