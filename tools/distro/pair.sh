#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Run by tools/distro/test.sh on two VMs of a distribution's own kernel:
# the srdma.ko built from the srdma-dkms package's source for that kernel
# loads, makes a device on eth0, and stock RC tools work between the hosts
# (ibv_rc_pingpong with data checked, ib_write_bw, ib_read_lat, rping
# through rdma_cm with data checked). The VM
# runner fails the run on any kernel report or taint other than the
# out-of-tree and unsigned-module ones.
. "$(dirname "$0")/../scenarios/lib.sh"

check "modprobe srdma: the module given for this kernel" modprobe srdma
check "it is the srdma-dkms build, for $(uname -r)" sh -c \
	'[ "$(modinfo -F vermagic srdma | cut -d " " -f 1)" = "$(uname -r)" ]'
rc_eth0_device srdma
rc_serve b
rc_test "a to b: ibv_rc_pingpong -s 1" ibv_rc_pingpong -s 1 -n 100 -c
rc_test "a to b: ibv_rc_pingpong -s 65536" ibv_rc_pingpong -s 65536 -n 10 -c
rc_test "a to b: ib_write_bw" ib_write_bw -F -s 16384 -n 50 -t 8 -u 18
rc_test "a to b: ib_read_lat" ib_read_lat -F -s 2 -n 50

# rping through rdma_cm: host b serves, host a pings 5 times (-V: the
# data checked)
check "modprobe rdma_ucm" modprobe rdma_ucm
rping_out=$SRDMA_RESULTS/rping
if [ "$SRDMA_ROLE" = b ]; then
	timeout 90 rping -s -a 198.18.0.2 -v -V -C 5 > "$rping_out.server" 2>&1 &
	rping_pid=$!
	check "rping server listens" wait_until 30 sh -c \
		"rdma resource show cm_id | grep -q 'state LISTEN'"
fi
check "both hosts are ready for rping" barrier rping
if [ "$SRDMA_ROLE" = a ]; then
	check_match "rping -v -V -C 5 to b: 5 pings" '^ping data: rdma-ping-4: ' \
		timeout 60 rping -c -a 198.18.0.2 -v -V -C 5
else
	wait "$rping_pid"
	rping_status=$?
	check "rping server: exit 0, 5 pings, no data mismatch" sh -c \
		"[ $rping_status = 0 ] && grep -q '^server ping data: rdma-ping-4: ' $rping_out.server &&
		 ! grep -q 'data mismatch' $rping_out.server"
fi
check "both hosts are done" barrier done
check "rdma link delete $dev" rdma link delete "$dev"
check "rmmod srdma" rmmod srdma
finish
