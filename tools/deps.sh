#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Install the Debian packages srdma's build and tests need, if missing.
# Runs as root (or through sudo) on Debian 12.
set -euo pipefail

packages=(
	# kernel and module builds
	build-essential bc bison flex libelf-dev libssl-dev cpio kmod xz-utils
	python3 perl sparse linux-source-6.1 linux-headers-amd64
	# the build against the 6.12 line's headers (bookworm-security), and
	# its debug test kernel
	linux-headers-6.12-amd64 linux-source-6.12
	# the test rig
	qemu-system-x86 iproute2 procps
	# the two-VM scenarios check the shared network with ping
	iputils-ping
	# userspace clients, run inside the VMs from this machine's root
	ibverbs-utils ibverbs-providers rdmacm-utils perftest nvme-cli fio
	libibverbs-dev librdmacm-dev
	# make bench: the bandwidth plot; the wire's ceiling (TCP)
	python3-matplotlib iperf3
	# RoCEv2 captures (rc_interop); tshark's one debconf question
	# (wireshark-common/install-setuid) takes its default, false, with
	# DEBIAN_FRONTEND=noninteractive
	tcpdump tshark
	# captures of what a wire would carry: UDP segmentation offload off
	# on a veth, so that srdma's batches are cut before the capture
	ethtool
)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
[ ${#missing[@]} = 0 ] && exit 0

echo "deps.sh: installing ${missing[*]}"
sudo=
[ "$(id -u)" = 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
