#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# timeout: 600
# NVMe over Fabrics on one VM (loopback): the kernel's nvmet exports a
# memory-backed null_blk namespace on an RDMA port at the device's address,
# nvme-cli discovers and connects over nvme-rdma (rdma_cm, RC, fast
# registration, remote invalidation), fio writes 16 MiB with 4 KiB and
# 64 KiB blocks and verifies every block, then the host disconnects, the
# device goes while nvmet listens on it, then the port, and the modules
# are removed cleanly (the order: lib.sh, nvmet_unexport).
# SRDMA_REF=rxe runs it on rdma_rxe.
. "$(dirname "$0")/lib.sh"

device_on_veth_with_peer	# $dev on veth0 198.18.0.1
addr=198.18.0.1
nqn=srdma-test
check "$dev: a RoCEv2 GID for $addr" wait_until 10 rocev2_gid_index "$dev" $addr

check "nvmet: $nqn exported on rdma $addr:4420" nvmet_export $nqn $addr
check "modprobe nvme-rdma" modprobe nvme-rdma
check_match "nvme discover -t rdma lists $nqn" "subnqn: *$nqn" \
	timeout 60 nvme discover -t rdma -a $addr -s 4420
check "nvme connect -t rdma" timeout 60 nvme connect -t rdma -n $nqn -a $addr -s 4420
check "the namespace's block device appears" wait_until 20 nvme_ns $nqn
ns=$(nvme_ns $nqn)
check "fio: 16 MiB of random writes (4 KiB and 64 KiB), every block verified ($ns)" \
	nvme_fio "$ns"
check "nvme disconnect" timeout 60 nvme disconnect -n $nqn
check "modprobe -r nvme-rdma" modprobe -r nvme-rdma
check "rdma link delete $dev while nvmet listens on it" rdma link delete "$dev"
check "nvmet: port and subsystem removed, nvmet-rdma unloaded" nvmet_unexport $nqn
finish
