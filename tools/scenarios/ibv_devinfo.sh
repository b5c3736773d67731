#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Stock rdma-core (ibverbs-utils through librxe) sees srdma devices.
. "$(dirname "$0")/lib.sh"

veth_pair
load_uverbs
check "rdma link add srdma0" rdma link add srdma0 type srdma netdev veth0
check "a uverbs device serves srdma0" wait_until 5 \
	grep -qx srdma0 /sys/class/infiniband_verbs/uverbs0/ibdev
check_match "its ABI version is rxe's" '^2$' \
	cat /sys/class/infiniband_verbs/uverbs0/abi_version
# rdma-core lists only devices a provider claimed: librxe, by driver_id.
check_match "ibv_devices lists srdma0" '^[[:space:]]+srdma0[[:space:]]+[0-9a-f]{16}' \
	ibv_devices
check "ibv_devinfo -v -d srdma0 succeeds" ibv_devinfo -v -d srdma0
ibv_devinfo -v -d srdma0 > "$SRDMA_RESULTS/ibv_devinfo.txt" 2>&1
info=$SRDMA_RESULTS/ibv_devinfo.txt
check_match "transport InfiniBand" 'transport:[[:space:]]+InfiniBand' cat "$info"
check_match "link layer Ethernet" 'link_layer:[[:space:]]+Ethernet' cat "$info"
check_match "port active" 'state:[[:space:]]+PORT_ACTIVE' cat "$info"
check_match "firmware version" 'fw_ver:[[:space:]]+0\.1\.0' cat "$info"
check_match "node GUID from the MAC" 'node_guid:[[:space:]]+[0-9a-f]{4}:[0-9a-f]{2}ff:fe' cat "$info"
check_match "one port" 'phys_port_cnt:[[:space:]]+1' cat "$info"
check_match "RoCE v2 GIDs listed" 'GID\[ *[0-9]+\]:.*v2' cat "$info"
check_match "IPv4 GID listed" '::ffff:198\.18\.0\.1, RoCE v2' cat "$info"
check_match "QPs advertised" 'max_qp:[[:space:]]+65536$' cat "$info"
check_match "PDs advertised" 'max_pd:[[:space:]]+65536' cat "$info"
check "rdma link delete srdma0" rdma link delete srdma0
check_no_match "ibv_devices no longer lists srdma0" srdma0 ibv_devices
finish
