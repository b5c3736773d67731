#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# make deb: the Debian package srdma-dkms, in results/deb/:
#   /usr/src/srdma-VERSION/    the module's source and dkms.conf; DKMS builds
#                              srdma.ko for every installed kernel that has
#                              its headers, and again on kernel upgrades
#   /usr/sbin/srdma-rate       the rate-limit tool, and its manual in
#                              /usr/share/doc/srdma-dkms/
# Install with "apt install ./results/deb/srdma-dkms_*.deb", remove with
# "apt remove srdma-dkms" (Documentation/install.md). VERSION is dkms.conf's.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
[ -n "$version" ] || { echo "deb: no PACKAGE_VERSION in dkms.conf" >&2; exit 1; }
arch=$(dpkg --print-architecture)
out=$repo/results/deb
root=$out/root
deb=$out/srdma-dkms_${version}_$arch.deb
rm -rf "$root" "$deb"
src=$root/usr/src/srdma-$version
doc=$root/usr/share/doc/srdma-dkms
mkdir -p "$root/DEBIAN" "$src" "$doc" "$root/usr/sbin"

# the module's build: sources and Kbuild files, no build products, no tests
cp Makefile Kbuild dkms.conf "$src/"
find drivers include \( -name '*.[ch]' -not -name '*.mod.c' -o -name Kbuild \) -print0 |
	xargs -0 cp --parents -t "$src"
make -s -C tools/srdma-rate srdma-rate
install -m 0755 tools/srdma-rate/srdma-rate "$root/usr/sbin/srdma-rate"
install -m 0644 Documentation/srdma-rate.md Documentation/install.md "$doc/"
cat > "$doc/copyright" <<COPYRIGHT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: srdma

Files: *
Copyright: the srdma developers
License: GPL-2.0 or Linux-OpenIB
 On Debian systems the GPL-2.0 is in /usr/share/common-licenses/GPL-2;
 Linux-OpenIB is the two-clause BSD-style license of the Linux RDMA
 subsystem.
COPYRIGHT

cat > "$root/DEBIAN/control" <<CONTROL
Package: srdma-dkms
Version: $version
Architecture: $arch
Maintainer: srdma developers <srdma@localhost>
Depends: dkms, libc6
Recommends: rdma-core, ibverbs-providers, ibverbs-utils, iproute2
Section: kernel
Priority: optional
Installed-Size: $(du -sk "$root" | cut -f1)
Description: software RDMA device (RoCEv2) over any Ethernet interface (DKMS)
 srdma makes an Ethernet netdev an RDMA device: rdma link add srdma0 type
 srdma netdev eth0. rdma-core's librxe drives it; it interoperates with
 rdma_rxe on the wire. DKMS builds the module for each installed kernel.
CONTROL

cat > "$root/DEBIAN/postinst" <<POSTINST
#!/bin/sh
# build and install srdma.ko for every kernel whose headers are installed
set -e
[ "\$1" = configure ] || exit 0
dkms status -m srdma -v $version | grep -q . || dkms add -m srdma -v $version
for build in /lib/modules/*/build; do
	[ -d "\$build" ] || continue
	kernel=\${build%/build}
	kernel=\${kernel#/lib/modules/}
	dkms install -m srdma -v $version -k "\$kernel" ||
		echo "srdma-dkms: srdma was not built for \$kernel (dkms status says why)" >&2
done
POSTINST

cat > "$root/DEBIAN/prerm" <<PRERM
#!/bin/sh
set -e
case "\$1" in
remove|upgrade|deconfigure)
	if dkms status -m srdma -v $version | grep -q .; then
		dkms remove -m srdma -v $version --all
	fi
	;;
esac
PRERM
chmod 0755 "$root/DEBIAN/postinst" "$root/DEBIAN/prerm"

dpkg-deb --root-owner-group --build "$root" "$deb" > /dev/null
echo "deb: $deb"
