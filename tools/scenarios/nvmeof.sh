#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# timeout: 600
# NVMe over Fabrics on one VM (loopback): the kernel's nvmet exports a
# memory-backed null_blk namespace on an RDMA port at the device's address,
# nvme-cli discovers and connects over nvme-rdma (rdma_cm, RC, fast
# registration, remote invalidation), fio writes 32 MiB with 4 KiB and
# 64 KiB blocks and verifies every block, then the host disconnects, the
# port goes, and the modules and the device are removed cleanly.
# SRDMA_REF=rxe runs it on rdma_rxe.
. "$(dirname "$0")/lib.sh"

device_on_veth_with_peer	# $dev on veth0 198.18.0.1
addr=198.18.0.1
nqn=srdma-test
cfs=/sys/kernel/config/nvmet
check "$dev: a RoCEv2 GID for $addr" wait_until 10 rocev2_gid_index "$dev" $addr

nvmet_export() {
	modprobe null_blk nr_devices=1 gb=1 memory_backed=1 &&
	modprobe nvmet-rdma && modprobe nvme-rdma &&
	mkdir "$cfs/subsystems/$nqn" &&
	echo 1 > "$cfs/subsystems/$nqn/attr_allow_any_host" &&
	mkdir "$cfs/subsystems/$nqn/namespaces/1" &&
	echo /dev/nullb0 > "$cfs/subsystems/$nqn/namespaces/1/device_path" &&
	echo 1 > "$cfs/subsystems/$nqn/namespaces/1/enable" &&
	mkdir "$cfs/ports/1" &&
	echo rdma > "$cfs/ports/1/addr_trtype" &&
	echo ipv4 > "$cfs/ports/1/addr_adrfam" &&
	echo $addr > "$cfs/ports/1/addr_traddr" &&
	echo 4420 > "$cfs/ports/1/addr_trsvcid" &&
	ln -s "$cfs/subsystems/$nqn" "$cfs/ports/1/subsystems/$nqn"
}
nvmet_unexport() {
	rm "$cfs/ports/1/subsystems/$nqn" && rmdir "$cfs/ports/1" &&
	echo 0 > "$cfs/subsystems/$nqn/namespaces/1/enable" &&
	rmdir "$cfs/subsystems/$nqn/namespaces/1" &&
	rmdir "$cfs/subsystems/$nqn"
}
# the block device of the connected namespace
nvme_ns() {
	local d
	for d in /sys/class/nvme/nvme*; do
		[ "$(cat "$d/subsysnqn" 2> /dev/null)" = $nqn ] || continue
		[ "$(cat "$d/transport")" = rdma ] || continue
		ls "$d" | grep -m1 '^nvme[0-9]*n1$' | sed 's|^|/dev/|' && return 0
	done
	return 1
}

check "nvmet: $nqn exported on rdma $addr:4420" nvmet_export
check_match "nvme discover -t rdma lists $nqn" "subnqn: *$nqn" \
	timeout 60 nvme discover -t rdma -a $addr -s 4420
check "nvme connect -t rdma" timeout 60 nvme connect -t rdma -n $nqn -a $addr -s 4420
check "the namespace's block device appears" wait_until 20 nvme_ns
ns=$(nvme_ns)
check "fio: 32 MiB of random writes (4 KiB and 64 KiB), every block verified ($ns)" \
	timeout 300 fio --name=verify --filename="$ns" --rw=randwrite --bs=4k,64k \
	--size=32m --verify=crc32c --do_verify=1 --direct=1 --ioengine=libaio \
	--iodepth=8
check "nvme disconnect" timeout 60 nvme disconnect -n $nqn
check "nvmet: port and subsystem removed" nvmet_unexport
check "modprobe -r nvme-rdma nvmet-rdma" modprobe -r nvme-rdma nvmet-rdma
check "rdma link delete $dev" rdma link delete "$dev"
finish
