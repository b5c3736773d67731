#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# timeout: 500
# kmemleak: on
# smp: 2
# Changes to the link while tests/rc_bulk moves data (RDMA WRITE from
# srdma0 to srdma1, RDMA READ back, every byte checked) between srdma0 on
# veth0 and srdma1 on veth1 in namespace peer:
# - a link down shorter than the QP's retry budget: the transfer goes on;
#   the same for a route to the peer through a gateway that is not there;
# - a link down longer than it: the transfer fails with
#   IBV_WC_RETRY_EXC_ERR within the budget, a new one works after link up;
#   the same for a QP that was idle when the link went down (nothing in
#   flight: the refusals themselves end in the error);
# - an MTU raised under a running QP: it goes on; an MTU lowered below a
#   running QP's path MTU, or an idle one's: it fails with
#   IBV_WC_RETRY_EXC_ERR, a new QP works at the new active MTU;
# - the address of the GID a QP uses removed: the QP fails the same way,
#   a new QP works on the new address;
# - ip link del, rdma link delete, namespace deletion and rmmod while the
#   process holds the device open with its rings mapped: the devices go,
#   the process gets IBV_EVENT_DEVICE_FATAL and exits when told, nothing
#   hangs, nothing leaks (kmemleak scan after the batch); the netdevs stay
#   after rmmod, and srdma loads again and works;
# - a device on a dummy netdev goes with it.
prog=$(dirname "$0")/../../tests/bin/rc_bulk
if [ ! -x "$prog" ]; then
	echo "not ok 1 - $prog exists (build it on the host first: make -C tests)"
	exit 1
fi
. "$(dirname "$0")/lib.sh"

runs=$SRDMA_RESULTS/bulk
mkdir -p "$runs"

# bulk NAME RC_BULK_OPTIONS...: rc_bulk srdma0 -> srdma1 in the background,
# its TAP in $runs/NAME.tap, its pid in $bulk_pid; returns once the
# connection is up (the write has started)
bulk() {
	local name=$1; shift
	"$prog" "$@" srdma0 srdma1 > "$runs/$name.tap" 2>&1 &
	bulk_pid=$!
	wait_until 20 grep -q '^ok .* RC QPs connected' "$runs/$name.tap"
}

# flowing NAME RC_BULK_OPTIONS...: bulk, then srdma0 has sent 16 packets
# more (so what follows happens under its traffic)
flowing() {
	local sent
	sent=$(counter srdma0 sent_pkts)
	bulk "$@" && wait_until 10 sent_since "$sent" 16
}
# sent_since N M: srdma0 has sent at least M packets since its count was N
sent_since() { [ "$(counter srdma0 sent_pkts)" -ge $(($1 + $2)) ]; }

# bulk_result NAME: wait (up to 60 s) for the rc_bulk started as NAME,
# print its TAP; its exit status
bulk_result() {
	local rc
	wait_until 60 sh -c "! kill -0 $bulk_pid 2> /dev/null"
	wait $bulk_pid
	rc=$?
	cat "$runs/$1.tap"
	return $rc
}

# running: the rc_bulk started last is still running (so what follows
# happens under its traffic)
running() { kill -0 "$bulk_pid" 2> /dev/null; }

load_uverbs
srdma_pair 1500
check "srdma0 active MTU 1024 at netdev MTU 1500" sh -c \
	"ibv_devinfo -d srdma0 | grep -q 'active_mtu:.*1024'"

# A link down of about 1 s; the QP's budget is 8 ACK timeouts of 1.07 s.
check "rc_bulk connected, its data flowing" flowing flap -m 8 -t 18 -T 40
check "link down under traffic (rc_bulk still running)" running
ip link set veth0 down
check "srdma0 port DOWN" wait_until 5 port_is srdma0 DOWN
sleep 1
ip link set veth0 up
check "srdma0 port ACTIVE again" wait_until 5 port_is srdma0 ACTIVE
check "the transfer across a 1 s link down completed, every byte checked" \
	bulk_result flap

# A route to the peer through a gateway that does not answer, for 2 s:
# the route a QP keeps between packets is looked up again, so its packets
# are lost meanwhile (ACK timeouts), and the transfer goes on once the
# route is gone. (An unreachable route would not do: a lookup bound to
# the netdev, as the QP's is, takes the peer as on-link then.)
timeouts=$(counter srdma0 ack_timeouts)
check "rc_bulk connected, its data flowing" flowing route -m 8 -t 18 -T 40
check "route change under traffic (rc_bulk still running)" running
ip route add 198.18.0.2/32 via 198.18.0.9 dev veth0
sleep 2
n=$(counter srdma0 ack_timeouts)
ip route del 198.18.0.2/32 via 198.18.0.9 dev veth0
check "the QP followed the new route: ack_timeouts $timeouts -> $n" \
	test "$n" -gt "$timeouts"
check "the transfer across a 2 s route to nowhere completed, every byte checked" \
	bulk_result route

# A link down of 3 s; the budget is 8 ACK timeouts of 16.8 ms.
check "rc_bulk connected, its data flowing" flowing down -m 8 -t 12 -T 40
check "link down under traffic (rc_bulk still running)" running
ip link set veth0 down
check "the QP fails within 2 s of the link going down" \
	wait_until 2 grep -q 'retry counter exceeded' "$runs/down.tap"
sleep 1
ip link set veth0 up
check_match "the transfer failed with a retry error completion" \
	'transport retry counter exceeded' bulk_result down
check "srdma0 port ACTIVE again" wait_until 5 port_is srdma0 ACTIVE

# idle_refused NAME CHANGE...: an rc_bulk whose QPs are idle when CHANGE
# makes the netdev refuse their packets; the first work request fails
# within the budget (8 ACK timeouts of 16.8 ms) and a second or so
idle_refused() {
	local name=$1; shift
	check "$name: rc_bulk connected, idle for 2 s" bulk "$name" -m 1 -t 12 -T 20 -p 2
	"$@"
	check "$name: the QP fails within 5 s of its first work request" \
		wait_until 7 grep -q 'retry counter exceeded' "$runs/$name.tap"
	check_match "$name: with a retry error completion" \
		'transport retry counter exceeded' bulk_result "$name"
}
idle_refused "link down under an idle QP" ip link set veth0 down
ip link set veth0 up
check "srdma0 port ACTIVE again" wait_until 5 port_is srdma0 ACTIVE
check "after link up: a new rc_bulk, every byte checked" \
	run_tap after_down "$prog" -m 1 srdma0 srdma1

# MTU up under a QP at path MTU 1024: it goes on.
check "rc_bulk connected at path MTU 1024, its data flowing" flowing mtu_up -m 8 -t 12 -T 40
check "MTU 9000 under traffic (rc_bulk still running)" running
ip link set veth0 mtu 9000
ip -n peer link set veth1 mtu 9000
check "srdma0 active MTU 4096 at netdev MTU 9000" wait_until 5 sh -c \
	"ibv_devinfo -d srdma0 | grep -q 'active_mtu:.*4096'"
check "the transfer across the MTU raise completed, every byte checked" \
	bulk_result mtu_up

# MTU down under a QP at path MTU 4096: its packets no longer fit.
check "rc_bulk connected at path MTU 4096, its data flowing" flowing mtu_down -m 32 -t 12 -T 40
check "MTU 1500 under traffic (rc_bulk still running)" running
ip link set veth0 mtu 1500
ip -n peer link set veth1 mtu 1500
check_match "the transfer failed with a retry error completion" \
	'transport retry counter exceeded' bulk_result mtu_down
ip link set veth0 mtu 9000
ip -n peer link set veth1 mtu 9000
idle_refused "MTU lowered under an idle QP" \
	sh -c 'ip link set veth0 mtu 1500 && ip -n peer link set veth1 mtu 1500'
check "a new rc_bulk at path MTU 1024, every byte checked" \
	run_tap after_mtu_down "$prog" -m 1 srdma0 srdma1

# The source address of a running QP removed.
check "rc_bulk connected from 198.18.0.1, its data flowing" flowing addr -m 8 -t 12 -T 40
check "address change under traffic (rc_bulk still running)" running
ip addr del 198.18.0.1/24 dev veth0
ip addr add 198.18.0.3/24 dev veth0
check_match "the transfer failed with a retry error completion" \
	'transport retry counter exceeded' bulk_result addr
check "srdma0 has a RoCEv2 GID for 198.18.0.3" wait_until 10 rocev2_gid_index srdma0 198.18.0.3
check_fails "srdma0 has no GID for 198.18.0.1" rocev2_gid_index srdma0 198.18.0.1
check "a new rc_bulk from 198.18.0.3, every byte checked" \
	run_tap after_addr "$prog" -m 1 srdma0 srdma1
echo "# srdma0: $(rdma statistic show link srdma0/1)"
check_no_match "kernel log: nothing alarming after the link changes" "$alarming" dmesg

# remove_under_traffic DEVICE WHAT COMMAND...: with rc_bulk running and an
# ibv_asyncwatch on DEVICE, COMMAND removes DEVICE
remove_under_traffic() {
	local dev=$1 what=$2; shift 2
	async_watch "$dev" "$runs/events.$what"
	check "$what: rc_bulk connected, its data flowing" flowing "$what" -m 8 -T 60
	check "$what under traffic (rc_bulk still running)" running
	check "$what" "$@"
	check "$what: $dev is gone" wait_until 20 ib_gone "$dev"
	check "$what: the user context got IBV_EVENT_DEVICE_FATAL" wait_until 10 \
		grep -q IBV_EVENT_DEVICE_FATAL "$runs/events.$what"
	kill "$bulk_pid" "$watch_pid"
	check "$what: the processes exit when told" wait_until 10 \
		sh -c "! kill -0 $bulk_pid 2> /dev/null && ! kill -0 $watch_pid 2> /dev/null"
	wait "$bulk_pid" "$watch_pid"
	check_no_match "$what: kernel log: nothing alarming" "$alarming" dmesg
}

remove_under_traffic srdma0 "ip link del veth0" ip link del veth0
check "srdma1 is gone too" wait_until 20 ib_gone srdma1
ip netns del peer

srdma_pair
remove_under_traffic srdma0 "rdma link delete srdma0" rdma link delete srdma0
check_no_match "no QP of the process left" 'comm rc_bulk' rdma resource show qp
check "rdma link delete srdma1" ip netns exec peer rdma link delete srdma1
ip link del veth0
ip netns del peer

srdma_pair
remove_under_traffic srdma1 "ip netns del peer" ip netns del peer
check "srdma0 is gone too (veth0 went with its peer)" wait_until 20 ib_gone srdma0

srdma_pair
remove_under_traffic srdma0 "modprobe -r srdma" modprobe -r srdma
check "srdma1 is gone too" ib_gone srdma1
check_no_match "rdma link show is empty" srdma rdma link show
check "the netdevs are still there" ip link show veth0
check "srdma loads again; a device on veth0 moves verified data" sh -c \
	"rdma link add srdma0 type srdma netdev veth0 &&
	 ip netns exec peer rdma link add srdma1 type srdma netdev veth1 &&
	 $prog -m 1 srdma0 srdma1"

# A dummy netdev (no peer, no carrier of its own): its device goes with it.
modprobe dummy
ip link add dum0 type dummy
ip link set dum0 up
check "rdma link add srdma2 on a dummy netdev" rdma link add srdma2 type srdma netdev dum0
check "ip link del dum0" ip link del dum0
check "srdma2 is gone" wait_until 20 ib_gone srdma2
check "rmmod srdma" sh -c "rdma link delete srdma0 &&
	ip netns exec peer rdma link delete srdma1 && rmmod srdma"
finish
