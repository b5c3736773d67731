#!/bin/bash
# topology: two
# link: tap
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# timeout: 600
# NVMe over Fabrics between two VMs, srdma on both hosts' eth0: host b's
# nvmet exports a RAM-backed null_blk namespace on an RDMA port; host a
# discovers it and connects with nvme-cli (nvme-rdma) over eth0 at MTU 9000
# (the payload of each packet in page fragments of virtio-net's receive
# buffers), fio writes 16 MiB in 4 KiB and 64 KiB blocks and verifies every
# one, then a disconnects and unloads nvme-rdma, b deletes its device while
# nvmet listens on it and removes the port (the order: lib.sh,
# nvmet_unexport), and a deletes its.
# SRDMA_REF=rxe runs rdma_rxe on both hosts instead.
. "$(dirname "$0")/lib.sh"

nqn=srdma-two-hosts
# a_done: host a is done; its fio in the debug guest may take longer than
# one barrier waits (120 s)
a_done() { barrier nvme-done || barrier nvme-done; }

# MTU 9000 (RDMA path MTU 4096): a packet spans several of virtio-net's
# receive buffers, so the receive path gets its payload in page fragments
check "eth0: MTU 9000" ip link set eth0 mtu 9000
rc_eth0_device "${SRDMA_REF:-srdma}"	# $dev, $my_ip, $peer_ip
if [ "$SRDMA_ROLE" = b ]; then
	check "nvmet: $nqn exported on rdma $my_ip:4420" nvmet_export $nqn "$my_ip"
	check "a is ready" barrier exported
	check "a is done with the namespace" a_done
	check "rdma link delete $dev while nvmet listens on it" rdma link delete "$dev"
	check "nvmet: port and subsystem removed, nvmet-rdma unloaded" nvmet_unexport $nqn
else
	check "modprobe nvme-rdma" modprobe nvme-rdma
	check "b exports the namespace" barrier exported
	check_match "nvme discover -t rdma lists $nqn" "subnqn: *$nqn" \
		timeout 60 nvme discover -t rdma -a "$peer_ip" -s 4420
	check "nvme connect -t rdma" \
		timeout 60 nvme connect -t rdma -n $nqn -a "$peer_ip" -s 4420
	check "the namespace's block device appears" wait_until 20 nvme_ns $nqn
	ns=$(nvme_ns $nqn)
	check "fio: 16 MiB of random writes (4 KiB and 64 KiB), every block verified ($ns)" \
		nvme_fio "$ns"
	check "nvme disconnect" timeout 60 nvme disconnect -n $nqn
	check "modprobe -r nvme-rdma" modprobe -r nvme-rdma
	check "b may remove the namespace" barrier nvme-done
fi
check "both hosts are done" barrier done
[ "$SRDMA_ROLE" = b ] || check "rdma link delete $dev" rdma link delete "$dev"
check "eth0: MTU 1500 again" ip link set eth0 mtu 1500
finish
