#!/bin/bash
# topology: two
# link: tap
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# timeout: 600
# Interoperability on the wire: host a runs srdma, host b the kernel's
# rdma_rxe, each on its eth0. ibv_rc_pingpong and perftest's RC tests in
# both directions (a serves, then b serves) while host a captures the
# RoCEv2 traffic with tcpdump, and then tests/mw_hosts (each host's memory
# windows used by the other), and once more ib_write_bw and (host b
# reading) ib_read_bw with host a's srdma behind a bridge, its packets sent
# in batches that eth0 cuts. Host a takes no packets together (GRO) while
# it captures: tcpdump would show each such join as one packet. Once the
# capture has ended, ib_write_bw from host b once more, with GRO: srdma
# takes rdma_rxe's packets together at eth0 and across the bridge. Then,
# on host a: every captured packet
# decodes as InfiniBand (tshark), both hosts sent each kind of RC packet,
# and every ICRC is correct (roce_icrc.py: tshark 4.0 shows the ICRC but
# does not check it). SRDMA_REF=rxe runs rdma_rxe on host a too.
. "$(dirname "$0")/lib.sh"
mw_prog=$(dirname "$0")/../../tests/bin/mw_hosts

pcap=$SRDMA_RESULTS/rocev2.pcap
fields=$SRDMA_RESULTS/rocev2.tshark
icrc=$SRDMA_RESULTS/rocev2.icrc

# The RoCEv2 payload is test data, which tshark's heuristic dissectors for
# payloads (RPC over RDMA, SMB Direct, NVMe-oF ...) may take for their
# protocol and call malformed: turn them off. `tshark -G heuristic-decodes`
# lists them (table infiniband.payload); eth_over_ib is the short name of
# the "ethertype" one.
tshark_args=(-n -r "$pcap" --disable-heuristic eth_over_ib)
for p in rpcordma smb_direct smc nvme-rdma lnet iser infiniband_sdp fcoib \
	 infiniband.eoib drbd; do
	tshark_args+=(--disable-protocol "$p")
done

# decode_capture: one line per captured packet: frame number, IP source,
# BTH opcode, ICRC, expert severity, malformed (tab separated)
decode_capture() {
	timeout 300 tshark "${tshark_args[@]}" -T fields -e frame.number -e ip.src \
		-e infiniband.bth.opcode -e infiniband.invariant.crc \
		-e _ws.expert.severity -e _ws.malformed > "$fields"
}

# all_infiniband: every packet has a BTH opcode and an ICRC
all_infiniband() {
	awk -F '\t' '$3 == "" || $4 == "" { print "frame " $1 ": not InfiniBand"; bad++ }
		END { print NR " packets"; exit NR == 0 || bad > 0 }' "$fields"
}

# no_expert_reports: no packet is malformed or has an expert warning or
# error (severity PI_WARN 0x600000 or more)
no_expert_reports() {
	awk -F '\t' '{ n = split($5, sev, ","); worst = 0
			for (i = 1; i <= n; i++) if (sev[i] + 0 > worst) worst = sev[i] + 0 }
		worst >= 6291456 || $6 != "" { print "frame " $1 ": " $5 " " $6; bad++ }
		END { exit bad > 0 }' "$fields"
}

# sent_by_both LOW HIGH: both hosts sent packets with a BTH opcode in
# LOW..HIGH
sent_by_both() {
	awk -F '\t' -v low="$1" -v high="$2" '
		$3 != "" && $3 >= low && $3 <= high { n[$2]++ }
		END { printf "198.18.0.1: %d, 198.18.0.2: %d\n", n["198.18.0.1"], n["198.18.0.2"]
		      exit !(n["198.18.0.1"] > 0 && n["198.18.0.2"] > 0) }' "$fields"
}

# same_icrcs: roce_icrc.py judged every packet tshark decoded, and read the
# same ICRC as tshark's infiniband.invariant.crc
same_icrcs() {
	awk -F '[ \t]' 'NR == FNR { if ($1 != "#") wire[$1] = $3; next }
		{ n++ }
		!($1 in wire) { print "frame " $1 ": not checked"; bad++; next }
		wire[$1] != $4 { print "frame " $1 ": tshark " $4 ", roce_icrc.py " wire[$1]; bad++ }
		END { print n " packets compared"; exit n == 0 || bad > 0 }' "$icrc" "$fields"
}

# capture_settled: the capture file did not grow in the last second
# (tcpdump, starved of CPU, may still be writing what it received)
capture_settled() {
	local before after
	before=$(stat -c %s "$pcap") && sleep 1 && after=$(stat -c %s "$pcap") &&
		[ "$before" = "$after" ]
}

# capture_whole: tcpdump wrote every packet that its filter took and the
# kernel did not drop; one packet that arrived while tcpdump was being
# stopped (the capture had settled: after the tests' traffic) may be
# counted as received and not written
capture_whole() {
	awk '/packets captured/ { c = $1 } /received by filter/ { r = $1 }
		/dropped by kernel/ { d = $1 }
		END { print c " captured, " r " received, " d " dropped"
		      exit !(c > 0 && r - (c + d) <= 1) }' "$SRDMA_RESULTS/tcpdump.log"
}

# icrcs_correct: roce_icrc.py finds every ICRC of the capture correct
icrcs_correct() {
	local status
	timeout 120 python3 tools/scenarios/roce_icrc.py "$pcap" > "$icrc"
	status=$?
	tail -n 1 "$icrc"
	grep ' BAD ' "$icrc" | head -n 5
	return $status
}

# flipped_byte_found: in the first 2 KiB of the capture (the packets that
# fit; roce_icrc.py ignores the cut one) with one byte of the first packet
# flipped (the first after its BTH: pcap header 24, record header 16,
# Ethernet 14, IPv4 20, UDP 8, BTH 12), roce_icrc.py finds one bad ICRC
flipped_byte_found() {
	local copy=$SRDMA_RESULTS/flipped.pcap byte hex out
	head -c 2048 "$pcap" > "$copy" && byte=$(od -An -tu1 -j94 -N1 "$copy") || return 1
	printf -v hex '%02x' $((255 - byte))
	printf "\\x$hex" | dd of="$copy" bs=1 seek=94 conv=notrunc status=none || return 1
	out=$(timeout 120 python3 tools/scenarios/roce_icrc.py "$copy")
	[ $? = 1 ] || return 1
	tail -n 1 <<< "$out"
	[ "$(grep -c ' BAD ' <<< "$out")" = 1 ]
}

# bridge_eth0: host a's address moves from eth0 to vb0, a veth whose peer
# vb1 is bridged with eth0 (br0), all at eth0's MTU. Only vb0 answers ARP
# for it: br0 would too, with eth0's MAC, and host b's frames to that MAC
# would end at br0, where no device takes RoCEv2.
bridge_eth0() {
	local mtu
	read -r mtu < /sys/class/net/eth0/mtu
	sysctl -qw net.ipv4.conf.all.arp_ignore=1 || return
	ip -batch - <<-EOF
	link add br0 mtu $mtu type bridge
	link add vb0 mtu $mtu type veth peer name vb1 mtu $mtu
	link set vb1 master br0
	link set eth0 master br0
	addr del 198.18.0.1/24 dev eth0
	addr add 198.18.0.1/24 dev vb0
	link set br0 up
	link set vb1 up
	link set vb0 up
	EOF
}

# unbridge_eth0: eth0 as the VM began, for the scenarios after this one
unbridge_eth0() {
	ip link delete vb0 && ip link delete br0 &&
		ip addr add 198.18.0.1/24 dev eth0 &&
		sysctl -qw net.ipv4.conf.all.arp_ignore=0
}

# stop_capture: tcpdump has written what it received, and ends
stop_capture() {
	check "tcpdump has written all it received" wait_until 60 capture_settled
	kill "$tcpdump_pid"
	wait "$tcpdump_pid"
	check "tcpdump captured packets, all it received" capture_whole
}

if [ "$SRDMA_ROLE" = a ]; then
	rc_eth0_device "${SRDMA_REF:-srdma}"
	[ "${SRDMA_REF:-srdma}" = rxe ] || check "no GRO while capturing" gro_pkts 0
	timeout 900 tcpdump -Z root -U -B 16384 -n -i eth0 -w "$pcap" udp port 4791 \
		2> "$SRDMA_RESULTS/tcpdump.log" &
	tcpdump_pid=$!
	check "tcpdump captures RoCEv2 on eth0" \
		wait_until 30 grep -q 'listening on eth0' "$SRDMA_RESULTS/tcpdump.log"
else
	rc_eth0_device rxe
fi
check "both hosts are capturing" rc_barrier capturing

rc_serve a
rc_suite "a serves:"
rc_serve b
rc_fresh_start
rc_suite "b serves:"
# memory windows: each host's used by the other (tests/mw_hosts), with
# rdma_rxe's known deviations as TODO where it owns them
a_rxe=()
[ "${SRDMA_REF:-srdma}" = rxe ] && a_rxe=(-x rxe)
check "both hosts are ready for memory windows" rc_barrier mw
hosts_run "memory windows of host a, b accesses" a "$mw_prog" "${a_rxe[@]}"
hosts_run "memory windows of host b (rdma_rxe), a accesses" b "$mw_prog" -x rxe

# srdma behind a bridge: its batches of packets (Documentation/transport.md,
# "Batches of packets") pass the veth whole and are cut at eth0, which has
# no offloads, as a NIC without UDP segmentation cuts them; rdma_rxe checks
# each segment's ICRC, and so does roce_icrc.py in the capture below
if [ "${SRDMA_REF:-srdma}" = srdma ]; then
	if [ "$SRDMA_ROLE" = a ]; then
		check "rdma link delete $dev" rdma link delete "$dev"
		check "198.18.0.1 on vb0, a veth bridged with eth0" bridge_eth0
		check "rdma link add $dev on vb0" rdma link add "$dev" type srdma netdev vb0
		check "$dev: port active" wait_until 5 port_is "$dev" ACTIVE
		check "$dev: a RoCEv2 GID for $my_ip" \
			wait_until 10 rocev2_gid_index "$dev" "$my_ip"
		rc_server_gid=$(rocev2_gid_index "$dev" "$my_ip")
		rc_client_gid=$rc_server_gid
	fi
	check "both hosts are ready, host a behind a bridge" rc_barrier bridged
	# host b learns vb0's MAC for 198.18.0.1
	[ "$SRDMA_ROLE" = a ] || ip neigh flush dev eth0
	check "the peer answers through the bridge" wait_until 30 ping -c1 -W1 "$peer_ip"
	rc_serve b
	rc_fresh_start
	# ib_write_bw: the requester's batches (a SEND's take the same path)
	rc_test "a behind a bridge: ib_write_bw" ib_write_bw -F -s 16384 -n 50 -t 8 -u 18
	if [ "$SRDMA_ROLE" = a ]; then
		check "$dev sent batches of packets (tx_batches)" \
			test "$(counter "$dev" tx_batches)" -gt 0
		batches=$(counter "$dev" tx_batches)
	fi
	# host b reads: srdma's read responses go in batches too
	rc_serve a
	rc_fresh_start
	rc_test "a behind a bridge serves: ib_read_bw" ib_read_bw -F -s 16384 -n 50 -t 8 -u 18
	if [ "$SRDMA_ROLE" = a ]; then
		check "$dev sent its read responses in batches" \
			test "$(counter "$dev" tx_batches)" -gt "$batches"
		stop_capture
		check "GRO on again" gro_pkts 64
		joins=$(counter "$dev" rx_batches)
	fi
	rc_serve a
	rc_fresh_start
	rc_test "a behind a bridge serves, GRO: ib_write_bw" ib_write_bw -F -s 16384 -n 50 -t 8 -u 18
	if [ "$SRDMA_ROLE" = a ]; then
		check "$dev took packets of rdma_rxe together (rx_batches $joins -> $(counter "$dev" rx_batches))" \
			test "$(counter "$dev" rx_batches)" -gt "$joins"
	fi
fi
check "both hosts are done" barrier done

if [ "$SRDMA_ROLE" = a ]; then
	[ "${SRDMA_REF:-srdma}" = rxe ] && stop_capture
	check "tshark decodes the capture" decode_capture
	check "every packet is RoCEv2: InfiniBand BTH over UDP 4791" all_infiniband
	check "no malformed packet, no expert warning" no_expert_reports
	check "RC SEND (first/middle/last/only) from both hosts" sent_by_both 0 5
	check "RC RDMA WRITE from both hosts" sent_by_both 6 11
	check "RC RDMA READ request from both hosts" sent_by_both 12 12
	check "RC RDMA READ response from both hosts" sent_by_both 13 16
	check "RC ACK from both hosts" sent_by_both 17 17
	check "RC atomic request from both hosts" sent_by_both 19 20
	check "RC atomic ACK from both hosts" sent_by_both 18 18
	check "every ICRC is correct (roce_icrc.py)" icrcs_correct
	check "tshark's infiniband.invariant.crc is the ICRC that was checked" same_icrcs
	check "a flipped byte gives a bad ICRC" flipped_byte_found
fi
check "rdma link delete $dev" rdma link delete "$dev"
if [ "$SRDMA_ROLE" = a ] && [ "${SRDMA_REF:-srdma}" = srdma ]; then
	check "198.18.0.1 back on eth0, the bridge gone" unbridge_eth0
fi
finish
