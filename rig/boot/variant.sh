# shellcheck shell=bash
# variant.sh: sourced by the rig's shell stages (matrix.sh, robustness.sh,
# bench.sh). A variant is a data file, kernel/variants/NAME.variant: "key =
# value" lines and comments (docs/architecture.md, "add a variant"). TOP
# and B must be set (and HZRIG for variant_accel); KSRC, if set, is the
# tree of variants that name none.

# variant_field NAME KEY: the value of KEY in variant NAME, empty if absent.
variant_field() {
	sed -n "s/^$2[[:space:]]*=[[:space:]]*//p" "$TOP/kernel/variants/$1.variant"
}

# variant_expand NAME...: the variants a list names, in order: a variant's
# own name, or a set ("all": every variant whose "sets =" line names it).
# Fails naming a word that is neither.
variant_expand() {
	local w f found
	for w in "$@"; do
		# A name becomes a path: plain names only (rig/lib/io.h's rule).
		case $w in
		'' | .* | -* | *[!A-Za-z0-9._+-]*)
			echo "'$w' is not a variant or set name: letters, digits and - _ . +, not starting with . or -" >&2
			return 1 ;;
		esac
		if [ -f "$TOP/kernel/variants/$w.variant" ]; then
			echo "$w"
			continue
		fi
		found=0
		for f in "$TOP"/kernel/variants/*.variant; do
			if sed -n 's/^sets[[:space:]]*=//p' "$f" | tr ' \t' '\n\n' | grep -qxF "$w"; then
				basename "$f" .variant
				found=1
			fi
		done
		[ $found = 1 ] || {
			echo "no variant or set '$w' (kernel/variants/$w.variant, or a 'sets =' name)" >&2
			return 1
		}
	done
}

# variant_tree NAME: the kernel source tree variant NAME builds from. Its
# "tree =" line names a Debian package (linux-source-X.Y, extracted into
# $B/src by tree_ensure) or a directory (absolute, or relative to TOP);
# without one, $KSRC (default: Debian's linux-source-6.1).
variant_tree() {
	local t
	t=$(variant_field "$1" tree)
	case "$t" in
	"") echo "${KSRC:-$B/src/linux-source-6.1}" ;;
	linux-source-*) echo "$B/src/$t" ;;
	/*) echo "$t" ;;
	*) echo "$TOP/$t" ;;
	esac
}

# tree_ensure DIR: a tree under $B/src named after a Debian package is
# extracted from /usr/src/PACKAGE.tar.xz the first time (setup.sh installs
# the packages); any other DIR must already hold a kernel tree.
tree_ensure() {
	local d=$1 pkg t0
	case "$d" in
	"$B/src/linux-source-"*)
		[ -f "$d/.hzrig-extracted" ] && return 0
		pkg=$(basename "$d")
		[ -f "/usr/src/$pkg.tar.xz" ] || {
			echo "no /usr/src/$pkg.tar.xz: install Debian's $pkg (make setup does)" >&2
			return 1
		}
		echo "hzrig: extracting /usr/src/$pkg.tar.xz into build/src"
		t0=$(date +%s)
		rm -rf "$d"
		mkdir -p "$B/src"
		tar -C "$B/src" -xf "/usr/src/$pkg.tar.xz" || return 1
		touch "$d/.hzrig-extracted"
		echo "hzrig: time: extracting $pkg $(($(date +%s) - t0)) s"
		;;
	*)
		[ -f "$d/Makefile" ] || {
			echo "$d: not a kernel tree (no Makefile)" >&2
			return 1
		}
		;;
	esac
}

# tree_key DIR: the name of the tree's per-tree build directory,
# $B/trees/KEY (its UAPI headers and the userspace built against them):
# the package name for Debian's trees, else the directory's name and a hash
# of its path.
tree_key() {
	case "$1" in
	"$B/src/linux-source-"*) basename "$1" ;;
	*) echo "$(basename "$1")-$(printf '%s' "$(cd "$1" && pwd -P)" | sha256sum | cut -c1-8)" ;;
	esac
}

# tree_version DIR: VERSION.PATCHLEVEL.SUBLEVEL from the tree's Makefile.
tree_version() {
	awk -F' *= *' '$1 == "VERSION" {v = $2} $1 == "PATCHLEVEL" {p = $2}
		$1 == "SUBLEVEL" {s = $2} END {print v "." p "." s}' "$1/Makefile"
}

# variant_accel VARIANT: the accelerator its built kernel and initramfs
# (in $B/VARIANT) boot with here, by hzrig accel's KVM smoke boot (its
# files in $B/VARIANT): kvm, or tcg. One decision for a matrix or a
# sweep, not one a boot.
variant_accel() {
	"$HZRIG" accel --kernel "$B/$1/kernel/arch/x86/boot/bzImage" \
		--initrd "$B/$1/initramfs.cpio" --qemu-config "$TOP/rig/boot/qemu/x86_64.conf" \
		--scratch "$B/$1"
}
