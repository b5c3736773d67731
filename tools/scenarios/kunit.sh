#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# kmemleak: on
# smp: 2
# Load the KUnit module and save its KTAP output for the host to parse
# (tools/check.sh does, with the kernel tree's kunit.py).
. "$(dirname "$0")/lib.sh"

# The kernel log holds the full KTAP of the module's suites (6.1's debugfs
# results lose the lines of parameterized cases).
dmesg -C
# srdma_verbs' vt_allocation_failures asks for allocation failures around
# its verbs (make_it_fail): 10 % of the allocations of the tasks that ask
check "failslab and fail_page_alloc for the tasks that ask" \
	fail_tasks_allocations 10 N
check "modprobe srdma_test (runs the suites)" modprobe srdma_test
check "every srdma suite reported" test "$(ls -d /sys/kernel/debug/kunit/srdma_* | wc -l)" -gt 0
dmesg > "$SRDMA_RESULTS/kunit.log"
check_match "the kernel log holds the KTAP" '^(\[[ 0-9.]+\])?[[:space:]]*KTAP version 1' \
	cat "$SRDMA_RESULTS/kunit.log"
check "rmmod srdma_test srdma" rmmod srdma_test srdma
finish
