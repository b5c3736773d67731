#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Stock rdma-core (ibverbs-utils through librxe) sees srdma devices.
. "$(dirname "$0")/lib.sh"

veth_pair
load_uverbs
check "rdma link add srdma0" rdma link add srdma0 type srdma netdev veth0
check "a uverbs char device exists" wait_until 5 \
	sh -c 'ls /dev/infiniband/uverbs* && ls /sys/class/infiniband/srdma0/device/ 2>/dev/null; true'
check_match "driver_id is rxe, so librxe drives it" 'driver rxe|driver_id rxe|rxe' \
	sh -c 'rdma dev show srdma0 -d; cat /sys/class/infiniband_verbs/uverbs*/ibdev'
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
check_match "no QP advertised before QPs exist" 'max_qp:[[:space:]]+0$' cat "$info"
check_match "PDs advertised" 'max_pd:[[:space:]]+65536' cat "$info"
check "rdma link delete srdma0" rdma link delete srdma0
check_no_match "ibv_devices no longer lists srdma0" srdma0 ibv_devices
finish
