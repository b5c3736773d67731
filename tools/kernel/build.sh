#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build an srdma test kernel from Debian's linux-source-LINE and cache it.
#
#   tools/kernel/build.sh [debug|plain] [LINE]
#       prints the kernel's cache directory; LINE is a kernel line Debian
#       ships the source of: 6.1 (the default, or $SRDMA_KERNEL_LINE) or 6.12
#
# The cache key is made of the inputs: the line, its linux-source package
# version, the config fragments (base.config, FLAVOUR.config and, if there
# is one, FLAVOUR-LINE.config) and this script. A second call with the same
# inputs returns at once. The directory holds:
#   build/              the O= build tree (KDIR for out-of-tree modules)
#   bzImage             the kernel to boot
#   mods/lib/modules/V  the installed modules (stripped)
#   release             the kernel release string (uname -r)
set -euo pipefail

flavour=${1:-debug}
line=${2:-${SRDMA_KERNEL_LINE:-6.1}}
here=$(cd "$(dirname "$0")" && pwd)
cache=${SRDMA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/srdma}
tarball=/usr/src/linux-source-$line.tar.xz

case $flavour in
debug) fragments=("$here/base.config" "$here/debug.config") ;;
plain) fragments=("$here/base.config") ;;
*) echo "build.sh: unknown flavour '$flavour' (debug or plain)" >&2; exit 2 ;;
esac
case $line in
6.1|6.12) ;;
*) echo "build.sh: unknown kernel line '$line' (6.1 or 6.12)" >&2; exit 2 ;;
esac
# what a line needs beyond the common fragments: symbols only it has
[ ! -e "$here/$flavour-$line.config" ] || fragments+=("$here/$flavour-$line.config")

srcver=$(dpkg-query -W -f='${Version}' "linux-source-$line" 2>/dev/null) || {
	echo "build.sh: package linux-source-$line is not installed" >&2
	exit 1
}
key=$( { echo "$line $srcver"; cat "${fragments[@]}" "$0"; } | sha256sum | cut -c1-16)
out=$cache/kernel-$line-$flavour-$key
log() { echo "build.sh: $*" >&2; }

if [ -e "$out/done" ]; then
	echo "$out"
	exit 0
fi

src=$cache/src/linux-$srcver
if [ ! -e "$src/.unpacked" ]; then
	log "unpacking linux-source $srcver"
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	tar -xJf "$tarball" -C "$src.tmp" --strip-components=1
	touch "$src.tmp/.unpacked"
	mv "$src.tmp" "$src"
fi

# The debug flavour's KASAN instruments srdma and the code its objects and
# packets go through: the RDMA core, the network stack and drivers, lib/.
# Its allocator side covers every allocation. Instrumenting the rest of the
# kernel too made the tests about 1.5 times slower, for code that srdma's
# data does not reach (Documentation/testing.md, "The test kernel"). Kbuild
# has no switch for that, so the kernel is built from a copy of the tree
# (hard links) whose scripts/Makefile.lib defaults KASAN_SANITIZE to n
# outside those directories; a directory or file that sets it keeps its
# own choice.
# shellcheck disable=SC2016 # make's variables, not the shell's
kasan_scope='KASAN_SANITIZE ?= $(if $(KBUILD_EXTMOD)$(filter drivers/infiniband/% drivers/net/% net/% lib/%,$(obj)/),y,n)'
if [ "$flavour" = debug ]; then
	scoped=$src-kasan-$(sha256sum <<< "$kasan_scope" | cut -c1-8)
	if [ ! -e "$scoped/.scoped" ]; then
		log "KASAN scope: $scoped"
		rm -rf "$scoped" "$scoped.tmp"
		cp -al "$src" "$scoped.tmp"
		lib=$scoped.tmp/scripts/Makefile.lib
		# a new file, not an edit: the original is a hard link
		awk -v line="$kasan_scope" '
			/^# we don.t want to check .depends on variables KASAN_SANITIZE/ && !done {
				print line; done = 1 }
			{ print }
			END { exit !done }' "$src/scripts/Makefile.lib" > "$lib.new" || {
			log "scripts/Makefile.lib: no KASAN block found"; exit 1; }
		rm "$lib"
		mv "$lib.new" "$lib"
		touch "$scoped.tmp/.scoped"
		mv "$scoped.tmp" "$scoped"
	fi
	src=$scoped
fi

log "configuring $flavour kernel in $out"
rm -rf "$out"
mkdir -p "$out/build"
make -s -C "$src" O="$out/build" x86_64_defconfig >&2
"$src/scripts/kconfig/merge_config.sh" -m -O "$out/build" "$out/build/.config" \
	"$src/kernel/configs/kvm_guest.config" "${fragments[@]}" >/dev/null
make -s -C "$src" O="$out/build" olddefconfig >&2

# merge_config drops what Kconfig refuses without failing: check every line.
bad=0
while IFS= read -r line; do
	case $line in CONFIG_*=*) ;; *) continue ;; esac
	sym=${line%%=*}
	val=${line#*=}
	if [ "$val" = n ]; then
		if grep -Eq "^$sym=(y|m)$" "$out/build/.config"; then
			log "config: $sym is set but the fragment says n"; bad=1
		fi
	elif ! grep -qx "$line" "$out/build/.config"; then
		log "config: wanted $line, got: $(grep -E "^(# )?$sym[= ]" "$out/build/.config" || echo unset)"
		bad=1
	fi
done < <(cat "${fragments[@]}")
[ $bad = 0 ] || { log "config fragment not satisfied"; exit 1; }

log "building (make -j$(nproc)); this takes several minutes once"
make -s -C "$src" O="$out/build" -j"$(nproc)" bzImage modules >&2
make -s -C "$src" O="$out/build" INSTALL_MOD_PATH="$out/mods" \
	INSTALL_MOD_STRIP=1 modules_install >&2
cp "$out/build/arch/x86/boot/bzImage" "$out/bzImage"
make -s -C "$src" O="$out/build" kernelrelease > "$out/release"
touch "$out/done"
echo "$out"
