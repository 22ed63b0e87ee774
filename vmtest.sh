#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the AppArmor selftests in a throw-away qemu guest.
#
# The guest boots a given bzImage (-k) or Debian's current amd64 kernel
# and a Debian unstable userspace (apparmor_parser >= 5.0) that is loaded
# as an initramfs, so no disk image, virtio or 9p driver is needed.  The
# suite's output comes back on a second serial port, its exit status and
# any files from /output on a third one.

set -euo pipefail

SELFDIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly SELFDIR
readonly ROOTFS_SUITE=sid
# Bump the list and the rootfs is rebuilt (its cache name hashes it).
readonly ROOTFS_PKGS="apparmor,libapparmor1,liburing2"
readonly BOOT_MARKER="vmtest: init started"
readonly KVM_BOOT_TIMEOUT=30
# Under TCG a debug kernel (build_kernel.sh -d), the slowest to boot,
# reached init in 48 s on a quiet host and in 184 s beside three other
# guests on two cores.  A guest that has not reached init by then has hung
# while booting (a KASAN report storm from swapper in early boot, seen
# once in many debug boots).
readonly TCG_BOOT_TIMEOUT=300
# A debug kernel (build_kernel.sh -d: 7.2, KASAN, kmemleak, lockdep) under
# TCG, ./settings being sized for a production kernel: run_kselftest.sh's
# timeout, 3x the 1369 s aa_unix_mediation took on one, and the guest's,
# 3x the 1482 s of the whole run (boot, the three programs, the kmemleak
# scan), measured beside another guest for its last 10 minutes.
readonly DEBUG_KST_TIMEOUT=4200
readonly DEBUG_TIMEOUT=4500
readonly DEFAULT_TIMEOUT=600
# What qemu prints when KVM stops a guest it cannot run (and keeps qemu
# alive, paused): Debian's kernels die so at their first BMI2 instruction
# on some hosts.
readonly KVM_ERRORS='KVM internal error|KVM: entry failed|kvm run failed'
# Marks a copy of this directory that vmtest.sh made in a kernel tree.
readonly COPY_MARK=.vmtest-copy

CACHE="${VMTEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/apparmor-selftests}"
KSRC="${KSRC:-}"
KSRC_SUITE=$ROOTFS_SUITE
PRINT_KSRC=0
MAKE_ARGS="${VMTEST_MAKE_ARGS:-}"
KERNEL=""
TARBALL=""
SUITE=sid
UPDATE=0
APPEND=""
MEM=2G
CPUS=2
OUTDIR=""
SHELL_AFTER=0
VERBOSE=0
ICOUNT=0
TIMEOUT=""
ACCEL="${VMTEST_ACCEL:-auto}"
USED_ACCEL=""
KST_ARGS=()
KST_TIMEOUT=""
CMD=()

usage()
{
	cat <<EOF
Usage: $0 [options] [-- CMD [ARGS...]]

Build the apparmor selftests, boot a qemu guest and run them there (or
run CMD in the guest, in the installed apparmor directory).  The suite's
or CMD's output goes to stdout and its exit status is ours, except: 1 if
the kernel crashed or logged a splat (BUG, WARNING, ...) or, with kmemleak
(build_kernel.sh -d), left AppArmor objects unreferenced, 124 if the guest
timed out, 125 if it could not be built or booted (git bisect run: skip).

  -k BZIMAGE    boot this kernel instead of Debian's linux-image-amd64
  -d SUITE      take Debian's kernel from SUITE (default: sid; e.g. trixie)
  -u            refresh the cached Debian package index (newer kernels)
  -K DIR        kernel tree to build the tests with (default: the tree
                around this directory, \$KSRC, or Debian's linux-source);
                this directory is copied to its selftests/apparmor, which
                must not exist or be a copy vmtest.sh made
  -T TARBALL    run this kselftest tarball (make kselftest-gen_tar)
                instead of building the suite
  -S SUITE      take Debian's linux-source from SUITE (default: $ROOTFS_SUITE)
  --print-ksrc  fetch that kernel tree if need be, print its path, exit
  -M ARGS       extra make arguments, e.g. 'USERCFLAGS=-Werror'
                (default: \$VMTEST_MAKE_ARGS)
  -c COLL       run_kselftest.sh collection (repeatable; default: apparmor)
  -t COLL:TEST  run_kselftest.sh test (repeatable)
  -O SECONDS    each test program's timeout instead of ./settings' (a
                build_kernel.sh -d kernel: $DEBUG_KST_TIMEOUT)
  -a ARGS       extra kernel command line, e.g. 'apparmor=0'
  -m MEM        guest memory (default: $MEM)
  -n CPUS       guest CPUs (default: $CPUS; a kernel without ACPI, such as
                build_kernel.sh's, starts only one)
  -o DIR        copy what the guest wrote under /output into DIR
  -C DIR        cache directory (default: \$VMTEST_CACHE or
                ~/.cache/apparmor-selftests)
  -s            start a shell on the console after the run (interactive)
  -v            also copy the guest console to stderr
  --icount      deterministic guest clock (qemu -icount shift=0,sleep=off,
                forces TCG, noapictimer); the guest sees vmtest.icount=1,
                VMTEST_ICOUNT=1
  --timeout S   give up on the guest after S seconds (default:
                $DEFAULT_TIMEOUT; a build_kernel.sh -d kernel: $DEBUG_TIMEOUT)
  -h            this help

KVM is used when /dev/kvm works (the guest must boot within ${KVM_BOOT_TIMEOUT}s and
not stop KVM), else TCG, until the host reboots (the cache's kvm-failed.*
file says why); VMTEST_ACCEL=kvm or tcg forces one.  What apt,
dpkg, debootstrap and make print on stdout goes to the run's setup.log.
EOF
	exit "${1:-0}"
}

log()
{
	echo "vmtest: $*" >&2
}

die()
{
	log "error: $*"
	exit 125
}

need_root()
{
	[[ $EUID -eq 0 ]] || die "$1 needs root (debootstrap and chroot)"
}

# quiet CMD...: run CMD with its output in the run's setup.log, so that
# package installation does not push the suite's output off the screen;
# the log's end is shown if CMD fails.
quiet()
{
	local rc=0

	"$@" >>"$RUN/setup.log" 2>&1 || rc=$?
	[[ $rc -eq 0 ]] && return 0
	log "'$1' failed (exit status $rc); end of $RUN/setup.log:"
	tail -n 20 "$RUN/setup.log" >&2
	return "$rc"
}

# Install missing host tools on Debian-like hosts, else name them.
host_deps()
{
	local -A pkg_of=([qemu-system-x86_64]=qemu-system-x86
		[debootstrap]=debootstrap [cpio]=cpio [rsync]=rsync
		[make]=make [gcc]=gcc [dpkg-deb]=dpkg [flock]=util-linux
		[xz]=xz-utils [pkg-config]=pkg-config)
	local missing=() cmd

	for cmd in "${!pkg_of[@]}"; do
		command -v "$cmd" >/dev/null || missing+=("${pkg_of[$cmd]}")
	done
	# The tests link against these; the guest has the runtime parts.
	pkg-config --exists libapparmor 2>/dev/null ||
		missing+=(libapparmor-dev)
	pkg-config --exists liburing 2>/dev/null || missing+=(liburing-dev)
	[[ ${#missing[@]} -eq 0 ]] && return
	if [[ $EUID -ne 0 ]] || ! command -v apt-get >/dev/null; then
		die "please install: ${missing[*]}"
	fi
	log "installing ${missing[*]}"
	quiet apt-get update -q || die "apt-get update failed"
	quiet env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends "${missing[@]}" ||
		die "installing ${missing[*]} failed"
}

# apt inside the rootfs chroot, with a package index per Debian suite so
# that sid and trixie kernels can be looked up side by side.
chroot_apt()
{
	local tool=$1 suite=$2

	shift 2
	chroot "$ROOTFS" env -C "${APT_CWD:-/}" "$tool" -q \
		-o APT::Sandbox::User=root \
		-o Acquire::Check-Valid-Until=false \
		-o Dir::Etc::SourceList="/etc/apt/vmtest-$suite.list" \
		-o Dir::Etc::SourceParts=/etc/apt/vmtest-empty.d \
		-o Dir::State::Lists="/var/lib/apt/vmtest-lists-$suite" \
		-o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= "$@"
}

apt_index()
{
	local suite=$1 lists="$ROOTFS/var/lib/apt/vmtest-lists-$1"

	need_root "fetching Debian packages"
	if [[ $UPDATE -eq 0 ]] && compgen -G "$lists/*_Packages" >/dev/null; then
		return
	fi
	# Only the mirror debootstrap picked is used, with the suite swapped.
	sed -n "s/^deb \([^ ]*\) $ROOTFS_SUITE .*/deb \1 $suite main/p" \
		"$ROOTFS/etc/apt/sources.list" >"$ROOTFS/etc/apt/vmtest-$suite.list"
	[[ -s $ROOTFS/etc/apt/vmtest-$suite.list ]] ||
		die "no '$ROOTFS_SUITE' line in $ROOTFS/etc/apt/sources.list"
	mkdir -p "$lists/partial" "$ROOTFS/etc/apt/vmtest-empty.d"
	log "updating the Debian $suite package index"
	quiet chroot_apt apt-get "$suite" update ||
		die "updating the Debian $suite package index failed"
}

# Print the package that the (meta) package $2 of suite $1 depends on
# and whose name starts with $3.
apt_dep()
{
	chroot_apt apt-cache "$1" depends "$2" |
		awk -v p="$3" '$1 == "Depends:" && index($2, p) == 1 { print $2; exit }'
}

apt_download()
{
	local suite=$1 dir="$ROOTFS/var/cache/vmtest"

	shift
	rm -rf "$dir" && mkdir -p "$dir"
	log "downloading $* ($suite)"
	APT_CWD=/var/cache/vmtest quiet chroot_apt apt-get "$suite" download "$@" ||
		die "downloading $* failed"
}

# Debian unstable minbase plus AppArmor userspace, as a chroot (used for
# apt) and a stripped uncompressed cpio (any kernel can unpack that).
ensure_rootfs()
{
	local hash tmp

	hash=$(echo "$ROOTFS_SUITE $ROOTFS_PKGS" | md5sum | cut -c1-8)
	ROOTFS="$CACHE/rootfs-$ROOTFS_SUITE-$hash"
	ROOTFS_CPIO="$ROOTFS.cpio"
	if [[ ! -d $ROOTFS ]]; then
		need_root "building the guest root filesystem"
		tmp="$ROOTFS.tmp.$$"
		rm -rf "$ROOTFS".tmp.*
		log "debootstrap $ROOTFS_SUITE into $ROOTFS (once)"
		quiet nice debootstrap --variant=minbase \
			--include="$ROOTFS_PKGS" "$ROOTFS_SUITE" "$tmp" ||
			die "debootstrap failed, see $tmp/debootstrap/debootstrap.log"
		mv "$tmp" "$ROOTFS"
		rm -f "$ROOTFS_CPIO"
	fi
	[[ -f $ROOTFS_CPIO ]] && return
	log "packing $ROOTFS_CPIO"
	# Leave out what a test run never reads: docs, locales, apt and dpkg
	# state, time zones, lintian, completions, Debconf, charsets.  The
	# kernel unpacks the cpio file by file at every boot: without the
	# last six (1,363 of 3,553 entries) the debug kernel reached init
	# in 21 to 27 s instead of 31 s under TCG.
	(cd "$ROOTFS" && find . \( -path ./usr/share/doc -o \
		-path ./usr/share/man -o -path ./usr/share/info -o \
		-path ./usr/share/locale -o -path './var/lib/apt/*' -o \
		-path './var/cache/apt/*' -o -path './var/log/*' -o \
		-path './tmp/*' -o -path ./debootstrap -o \
		-path ./usr/share/zoneinfo -o -path ./usr/share/lintian -o \
		-path ./usr/share/bash-completion -o \
		-path ./usr/share/perl5/Debconf -o -path './var/lib/dpkg/info' -o \
		-path ./usr/lib/x86_64-linux-gnu/gconv \) -prune -o -print0 |
		cpio -o -0 -H newc -R 0:0 --quiet) >"$ROOTFS_CPIO.tmp"
	mv "$ROOTFS_CPIO.tmp" "$ROOTFS_CPIO"
}

# Resolve linux-image-amd64 of $SUITE (from the cached index) and cache
# its vmlinuz and config.  Newer Debian kernels split the image into
# linux-binary-* (vmlinuz) and linux-base-* (config), so fetch those too.
ensure_debian_kernel()
{
	local pkg ver dir tmp deb p

	apt_index "$SUITE"
	pkg=$(apt_dep "$SUITE" linux-image-amd64 linux-image-)
	[[ -n $pkg ]] || die "cannot resolve linux-image-amd64 in $SUITE"
	ver=$(chroot_apt apt-cache "$SUITE" show --no-all-versions "$pkg" |
		sed -n 's/^Version: //p')
	dir="$CACHE/kernel/${pkg}_$ver"
	KERNEL="$dir/vmlinuz"
	log "Debian $SUITE kernel: $pkg $ver"
	[[ -f $KERNEL ]] && return
	local pkgs=("$pkg")
	for p in linux-binary linux-base; do
		p="$p-${pkg#linux-image-}"
		chroot_apt apt-cache "$SUITE" show "$p" >/dev/null 2>&1 &&
			pkgs+=("$p")
	done
	apt_download "$SUITE" "${pkgs[@]}"
	tmp="$dir.tmp.$$"
	mkdir -p "$tmp/x"
	for deb in "$ROOTFS"/var/cache/vmtest/*.deb; do
		dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp/x"
	done
	for p in vmlinuz config; do
		find "$tmp/x" -type f \( -path "*/boot/$p-*" -o \
			-path "*/lib/modules/*/$p" \) -exec mv {} "$tmp/$p" \;
	done
	[[ -f $tmp/vmlinuz ]] || die "no vmlinuz in ${pkgs[*]}"
	rm -rf "$tmp/x" "$dir" "$ROOTFS/var/cache/vmtest"
	mv "$tmp" "$dir"
}

# A kernel tree to build the selftests in: the one around us, $KSRC, or
# Debian's linux-source of $KSRC_SUITE unpacked once into the cache.
ensure_ksrc()
{
	local pkg tmp dir

	if [[ -n $KSRC ]]; then
		[[ -d $KSRC ]] || die "no such directory: $KSRC"
		KSRC="$(cd "$KSRC" && pwd)"
	elif [[ -f $SELFDIR/../lib.mk && -f $SELFDIR/../../../../Makefile ]]; then
		KSRC="$(cd "$SELFDIR/../../../.." && pwd)"
	else
		apt_index "$KSRC_SUITE"
		pkg=$(apt_dep "$KSRC_SUITE" linux-source linux-source-)
		[[ -n $pkg ]] || die "cannot resolve linux-source in $KSRC_SUITE"
		# Suites can ship the same package name in other versions.
		dir=$pkg
		[[ $KSRC_SUITE == "$ROOTFS_SUITE" ]] || dir=$pkg.$KSRC_SUITE
		KSRC="$CACHE/$dir"
		[[ -f $KSRC/usr/include/linux/un.h ]] && return
		apt_download "$KSRC_SUITE" "$pkg"
		tmp="$CACHE/$dir.tmp.$$"
		rm -rf "$CACHE/$dir".tmp.* && mkdir -p "$tmp"
		log "unpacking $pkg (once)"
		dpkg-deb --fsys-tarfile "$ROOTFS"/var/cache/vmtest/"$pkg"_*.deb |
			tar -xO --wildcards './usr/src/linux-source-*.tar.*' |
			nice tar -xJ -C "$tmp" --strip-components=1
		rm -rf "$ROOTFS/var/cache/vmtest"
		mv "$tmp" "$KSRC"
	fi
	[[ -f $KSRC/tools/testing/selftests/lib.mk ]] ||
		die "$KSRC is not a kernel source tree"
	if [[ ! -f $KSRC/usr/include/linux/un.h ]]; then
		log "make headers in $KSRC"
		nice make -s -C "$KSRC" -j"$(nproc)" headers >>"$RUN/setup.log"
	fi
}

# Build and install the suite into $RUN/overlay/kselftest.  Objects go to
# the cache (O=) so the source tree stays clean, runs share only the copy
# of this directory and the objects, which the lock covers, and a run
# rebuilds what changed since the last.  One object directory per tree,
# this directory, its Makefile, make arguments, compiler and libraries:
# what make's dependencies miss (a copy from another directory can hold
# older files than the objects).
# The suite is built in the kernel tree, as a copy of this directory.  A
# copy is only ever replaced where we made it (a tree in our cache, or a
# directory holding our mark): never someone's own apparmor selftests.
own_copy()
{
	[[ -e $1 ]] || return 0
	[[ $1 == "$CACHE"/* || -f $1/$COPY_MARK ]] && return 0
	die "$1 exists and was not made by vmtest.sh: refusing to replace it;" \
		"run that tree's own vmtest.sh, or move it away"
}

build_suite()
{
	local st="$KSRC/tools/testing/selftests" margs objs

	if [[ $SELFDIR != "$st/apparmor" ]]; then
		own_copy "$st/apparmor"
		rsync -a --delete --exclude=.git "$SELFDIR/" "$st/apparmor/"
		touch "$st/apparmor/$COPY_MARK"
	fi
	read -r -a margs <<<"$MAKE_ARGS"
	objs=$CACHE/suite/$( {
		echo "$KSRC $SELFDIR $MAKE_ARGS"
		cat "$SELFDIR/Makefile"
		stat -c %Y "$KSRC/usr/include/linux/un.h"
		"${CC:-gcc}" --version | head -n 1
		pkg-config --modversion liburing libapparmor 2>/dev/null
	} | sha256sum | cut -c1-16)
	# Unused for a week: another tree's, or another compiler's.
	find "$CACHE/suite" -mindepth 1 -maxdepth 1 -mtime +7 \
		-exec rm -rf {} + 2>/dev/null || true
	mkdir -p "$objs" && touch "$objs"
	log "building the apparmor selftests in $KSRC"
	# Static: the binaries do not depend on the guest's library versions
	# (-M LDFLAGS= links them against the guest's instead).  Progress
	# lines go to setup.log, diagnostics (stderr) to the terminal.
	if ! nice make -s -C "$st" -j"$(nproc)" TARGETS=apparmor O="$objs" \
		KHDR_INCLUDES="-isystem $KSRC/usr/include" LDFLAGS=-static \
		INSTALL_PATH="$RUN/overlay/kselftest" "${margs[@]}" install \
		>>"$RUN/setup.log"; then
		rm -rf "$objs"
		die "building the selftests failed"
	fi
}

# A kselftest tarball (make kselftest-gen_tar) instead of a build: the
# guest runs it as LKFT does, with nothing built for it.
unpack_tarball()
{
	mkdir -p "$RUN/overlay/kselftest"
	tar -xaf "$TARBALL" -C "$RUN/overlay/kselftest" ||
		die "cannot unpack $TARBALL"
	[[ -x $RUN/overlay/kselftest/run_kselftest.sh ]] ||
		die "$TARBALL has no run_kselftest.sh: not a kselftest tarball"
}

# The guest's /init: mount what the tests need, run $RUN/overlay/vmtest/
# cmd.sh with its output on ttyS1, report status and /output on ttyS2,
# then power off (minbase has no poweroff binary, sysrq does it).
write_init()
{
	cat >"$RUN/overlay/init" <<'EOF'
#!/bin/sh
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin HOME=/root
mount -t proc none /proc
mount -t sysfs none /sys
mount -t securityfs none /sys/kernel/security
mount -t devtmpfs none /dev
# devtmpfs lacks what udev adds; the kselftest runner writes to /dev/stdout.
ln -s /proc/self/fd /dev/fd
ln -s /proc/self/fd/0 /dev/stdin
ln -s /proc/self/fd/1 /dev/stdout
ln -s /proc/self/fd/2 /dev/stderr
mkdir -p /dev/pts /dev/shm /output
mount -t devpts none /dev/pts
mount -t tmpfs none /dev/shm
mount -t tmpfs none /tmp
mount -t tmpfs none /run
# A debug kernel's kmemleak is read there; other kernels may lack it.
mount -t debugfs none /sys/kernel/debug 2>/dev/null
echo vmtest >/proc/sys/kernel/hostname
echo "vmtest: init started"
echo "vmtest: $(uname -a)"
echo "vmtest: cmdline: $(cat /proc/cmdline)"
echo "vmtest: lsm: $(cat /sys/kernel/security/lsm 2>&1)"
echo "vmtest: $(apparmor_parser --version 2>&1 | head -n1)"
echo "vmtest: $(nproc) cpus, $(grep MemTotal /proc/meminfo)"
# raw: no \r added; stty also waits for output to drain (TCSADRAIN).
stty -F /dev/ttyS1 raw -echo
stty -F /dev/ttyS2 raw -echo
(cd /kselftest/apparmor && bash /vmtest/cmd.sh) </dev/null >/dev/ttyS1 2>&1
rc=$?
# kmemleak's reports of what AppArmor allocated and nothing points to
# any more, after the run: it reports no object younger than 5 s.
if [ -w /sys/kernel/debug/kmemleak ]; then
	sleep 6
	echo scan >/sys/kernel/debug/kmemleak
	awk '/^unreferenced object/ { if (aa) printf "%s", b; b = ""; aa = 0 }
	     { b = b $0 "\n" }
	     /\] (__)?(aa|apparmor|unpack)_/ { aa = 1 }
	     END { if (aa) printf "%s", b }' /sys/kernel/debug/kmemleak
	echo "vmtest: kmemleak scanned"
fi
echo "vmtest: exit status $rc"
if [ -n "$(ls -A /output)" ]; then
	echo VMTEST-OUTPUT-BEGIN
	tar -C /output -cf - . | base64
	echo VMTEST-OUTPUT-END
fi >/dev/ttyS2
echo "VMTEST-EXIT=$rc" >/dev/ttyS2
stty -F /dev/ttyS1 raw
stty -F /dev/ttyS2 raw
[ -f /vmtest/shell ] && cd /kselftest/apparmor &&
	setsid -c bash -l </dev/ttyS0 >/dev/ttyS0 2>&1
echo o >/proc/sysrq-trigger
sleep 3
echo b >/proc/sysrq-trigger
EOF
	chmod +x "$RUN/overlay/init"
}

# The concatenation of the cached rootfs cpio and one with /init, the
# installed suite and the command (the kernel unpacks them in order).
make_initrd()
{
	local c=("$@") cmd

	mkdir -p "$RUN/overlay/vmtest"
	write_init
	if [[ ${#c[@]} -eq 0 ]]; then
		[[ ${#KST_ARGS[@]} -gt 0 ]] || KST_ARGS=(-c apparmor)
		c=(/kselftest/run_kselftest.sh "${KST_ARGS[@]}"
		   ${KST_TIMEOUT:+-o "$KST_TIMEOUT"})
	fi
	printf -v cmd ' %q' "${c[@]}"
	printf 'export VMTEST_ICOUNT=%s\nexec%s\n' "$ICOUNT" "$cmd" \
		>"$RUN/overlay/vmtest/cmd.sh"
	[[ $SHELL_AFTER -eq 1 ]] && touch "$RUN/overlay/vmtest/shell"
	(cd "$RUN/overlay" && find . -print0 |
		cpio -o -0 -H newc -R 0:0 --quiet) >"$RUN/overlay.cpio"
	cat "$ROOTFS_CPIO" "$RUN/overlay.cpio" >"$RUN/initrd.cpio"
}

# Start qemu in the background; $QEMU_PID is its pid.
start_qemu()
{
	local accel=$1 console="file:$RUN/console.log"
	local args=(-nodefaults -display none -no-reboot -m "$MEM"
		-smp "$CPUS" -kernel "$KERNEL" -initrd "$RUN/initrd.cpio")
	# kasan_multi_shot: KASAN reports every bad access, not only the
	# boot's first, so that each test's own report FAILs it (other
	# kernels pass the unknown word on to /init, which ignores it).
	local cmdline="console=ttyS0,115200 panic=-1 rdinit=/init kasan_multi_shot"

	[[ $accel == kvm ]] && args+=(-accel kvm -cpu host)
	[[ $accel == tcg ]] && args+=(-accel "tcg,thread=single" -cpu max)
	if [[ $ICOUNT -eq 1 ]]; then
		args+=(-icount "shift=0,sleep=off")
		# noapictimer: the PIT ticks instead.  Calibrating the local
		# APIC timer waits out ticks of a clock that only instructions
		# move: 9.4 of the 14.9 s to init of a tinyconfig 7.2.
		cmdline+=" vmtest.icount=1 noapictimer"
	fi
	# With -s the console is our terminal (^A x quits), still logged.
	[[ $SHELL_AFTER -eq 1 ]] && console=chardev:con &&
		args+=(-chardev "stdio,id=con,mux=on,logfile=$RUN/console.log"
			-mon chardev=con)
	args+=(-serial "$console" -serial "file:$RUN/output.log"
		-serial "file:$RUN/control.log")
	: >"$RUN/console.log"
	log "booting $KERNEL with $accel (logs in $RUN)"
	# fd 8 is our stdin with -s, else /dev/null.
	qemu-system-x86_64 "${args[@]}" -append "$cmdline $APPEND" \
		<&8 2>"$RUN/qemu.log" &
	QEMU_PID=$!
}

stop_qemu()
{
	kill "$QEMU_PID" 2>/dev/null || return 0
	sleep 1
	kill -9 "$QEMU_PID" 2>/dev/null || true
	wait "$QEMU_PID" 2>/dev/null || true
}

# Wait until the guest printed the boot marker (0), or until qemu died,
# KVM stopped the guest or $1 seconds passed (1, the reason in $BOOT_FAIL):
# a KVM that cannot run the guest is known in seconds.
wait_boot()
{
	local end=$((SECONDS + $1))

	while ((SECONDS < end)); do
		grep -qa "$BOOT_MARKER" "$RUN/console.log" && return 0
		BOOT_FAIL=$(grep -m 1 -E "$KVM_ERRORS" "$RUN/qemu.log") &&
			return 1
		kill -0 "$QEMU_PID" 2>/dev/null || {
			BOOT_FAIL="qemu exited: $(head -n 1 "$RUN/qemu.log")"
			return 1
		}
		sleep 0.5
	done
	BOOT_FAIL="no boot within $1s"
	return 1
}

console_tail()
{
	log "last console lines ($RUN/console.log):"
	tail -n 30 "$RUN/console.log" | tr -d '\r' >&2
	[[ -s $RUN/qemu.log ]] && { log "qemu said:"; cat "$RUN/qemu.log" >&2; }
	return 0
}

# Boot with KVM when it can and works, else TCG; stream the guest's
# output to stdout; return the guest command's exit status.
run_guest()
{
	local accel=tcg end boot_end booted rc tails=() failed

	# A KVM that could not run a guest is not tried again before the
	# host reboots: a try costs up to KVM_BOOT_TIMEOUT seconds a guest.
	failed=$CACHE/kvm-failed.$(cat /proc/sys/kernel/random/boot_id)
	if [[ $ACCEL == auto && -e $failed ]]; then
		log "KVM: failed on this host before ($failed); using TCG"
		ACCEL=tcg
	fi
	[[ -w /dev/kvm ]] || ACCEL=${ACCEL/auto/tcg}
	[[ $ICOUNT -eq 1 ]] && ACCEL=tcg
	if [[ $ACCEL != tcg ]]; then
		accel=kvm
		start_qemu kvm
		if ! wait_boot "$KVM_BOOT_TIMEOUT" && [[ $ACCEL == auto ]]; then
			log "KVM: $BOOT_FAIL; using TCG"
			echo "$KERNEL: $BOOT_FAIL" >"$failed"
			stop_qemu
			mv "$RUN/qemu.log" "$RUN/qemu-kvm.log"
			accel=tcg
		fi
	fi
	[[ $accel == tcg ]] && start_qemu tcg
	USED_ACCEL=$accel
	end=$((SECONDS + TIMEOUT))
	boot_end=$((SECONDS + TCG_BOOT_TIMEOUT))
	booted=0
	: >"$RUN/output.log"
	tail -n +1 -F -s 0.2 --pid="$QEMU_PID" "$RUN/output.log" 2>/dev/null |
		sed -u 's/\r//g' &
	tails+=($!)
	if [[ $VERBOSE -eq 1 ]]; then
		tail -n +1 -F -s 0.2 --pid="$QEMU_PID" "$RUN/console.log" \
			2>/dev/null | sed -u 's/\r//g' >&2 &
		tails+=($!)
	fi
	while kill -0 "$QEMU_PID" 2>/dev/null; do
		# A guest KVM stopped never resumes (VMTEST_ACCEL=kvm).
		if grep -qE "$KVM_ERRORS" "$RUN/qemu.log"; then
			stop_qemu
			wait "${tails[@]}" || true
			log "FAIL: KVM stopped the guest"
			console_tail
			return 125
		fi
		if ((booted == 0)) && grep -qa "$BOOT_MARKER" "$RUN/console.log"; then
			booted=1
			log "init started after $((SECONDS + TIMEOUT - end))s ($accel)"
		elif ((booted == 0 && SECONDS >= boot_end)); then
			stop_qemu
			wait "${tails[@]}" || true
			log "FAIL: no init within ${TCG_BOOT_TIMEOUT}s ($accel)"
			console_tail
			return 125
		fi
		if [[ $SHELL_AFTER -eq 0 ]] && ((SECONDS >= end)); then
			stop_qemu
			wait "${tails[@]}" || true
			log "FAIL: guest timed out after ${TIMEOUT}s ($accel)"
			console_tail
			return 124
		fi
		sleep 0.5
	done
	wait "$QEMU_PID" && rc=0 || rc=$?
	wait "${tails[@]}" || true
	grep -qa "$BOOT_MARKER" "$RUN/console.log" || {
		log "FAIL: the guest did not boot (qemu exit status $rc, $accel)"
		console_tail
		return 125
	}
	rc=$(tr -d '\r' <"$RUN/control.log" | sed -n 's/^VMTEST-EXIT=//p')
	[[ -n $rc ]] || {
		log "FAIL: the guest died before reporting a status ($accel)"
		console_tail
		return 1
	}
	log "guest ($accel) exit status $rc after $((SECONDS + TIMEOUT - end))s"
	return "$rc"
}

copy_output()
{
	if ! grep -q '^VMTEST-OUTPUT-BEGIN' "$RUN/control.log"; then
		log "the guest wrote nothing to /output"
		return 0
	fi
	tr -d '\r' <"$RUN/control.log" |
		sed -n '/^VMTEST-OUTPUT-BEGIN$/,/^VMTEST-OUTPUT-END$/p' |
		sed '1d;$d' | base64 -d | tar -x -C "$OUTDIR" ||
		{ log "copying /output back failed"; return 125; }
	log "guest /output copied to $OUTDIR"
}

# A kernel splat while the tests ran fails the run even if they passed.
check_splat()
{
	grep -qa 'vmtest: kmemleak scanned' "$RUN/console.log" &&
		log "kmemleak scanned after the run"
	sed -n "/$BOOT_MARKER/,\$p" "$RUN/console.log" | tr -d '\r' |
		grep -E -A20 -e '(BUG|WARNING|Oops|UBSAN|KASAN|refcount_t):' \
			-e '^unreferenced object' >&2 || return 0
	log "FAIL: kernel splat during the run (see above)"
	return 1
}

# shellcheck disable=SC2317,SC2329 # called from the EXIT trap
cleanup()
{
	[[ -n ${QEMU_PID:-} ]] && stop_qemu
	[[ -n ${RUN:-} ]] && rm -rf "$RUN"/*.cpio
	return 0
}

parse_args()
{
	while [[ $# -gt 0 ]]; do
		case $1 in
		-[kdKSMctamnoCO]|--timeout)
			[[ $# -ge 2 ]] || usage 1 >&2 ;;&
		-k) KERNEL=$(realpath "$2"); shift ;;
		-d) SUITE=$2; shift ;;
		-u) UPDATE=1 ;;
		-K) KSRC=$2; shift ;;
		-T) TARBALL=$(realpath "$2"); shift ;;
		-S) KSRC_SUITE=$2; shift ;;
		--print-ksrc) PRINT_KSRC=1 ;;
		-M) MAKE_ARGS+=" $2"; shift ;;
		-c) KST_ARGS+=(-c "$2"); shift ;;
		-t) KST_ARGS+=(-t "$2"); shift ;;
		-O) KST_TIMEOUT=$2; shift ;;
		-a) APPEND+=" $2"; shift ;;
		-m) MEM=$2; shift ;;
		-n) CPUS=$2; shift ;;
		-o) OUTDIR=$2; shift ;;
		-C) CACHE=$2; shift ;;
		-s) SHELL_AFTER=1 ;;
		-v) VERBOSE=1 ;;
		--icount) ICOUNT=1 ;;
		--timeout) TIMEOUT=$2; shift ;;
		-h|--help) usage 0 ;;
		--) shift; CMD=("$@"); return ;;
		*) usage 1 >&2 ;;
		esac
		shift
	done
}

main()
{
	local rc=0

	parse_args "$@"
	[[ -z $KERNEL || -f $KERNEL ]] || die "no such kernel: $KERNEL"
	if [[ -n $KERNEL ]] &&
		grep -qs 'config\.debug' "$(dirname "$KERNEL")/build-info"; then
		KST_TIMEOUT=${KST_TIMEOUT:-$DEBUG_KST_TIMEOUT}
		TIMEOUT=${TIMEOUT:-$DEBUG_TIMEOUT}
	fi
	TIMEOUT=${TIMEOUT:-$DEFAULT_TIMEOUT}
	mkdir -p "$CACHE/runs" "${OUTDIR:-$CACHE}"
	# Runs older than a week only hold logs by now.
	find "$CACHE/runs" -mindepth 1 -maxdepth 1 -mtime +7 \
		-exec rm -rf {} + 2>/dev/null || true
	RUN=$(mktemp -d "$CACHE/runs/$(date +%Y%m%d-%H%M%S)-XXXX")
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	# After RUN: the apt output goes to its setup.log.
	host_deps
	if [[ $SHELL_AFTER -eq 1 ]]; then exec 8<&0; else exec 8</dev/null; fi
	# One run at a time fills the cache and builds in a shared tree.
	exec 9>"$CACHE/lock"
	flock 9
	ensure_rootfs
	if [[ $PRINT_KSRC -eq 1 ]]; then
		ensure_ksrc
		echo "$KSRC"
		exit 0
	fi
	[[ -n $KERNEL ]] || ensure_debian_kernel
	if [[ -n $TARBALL ]]; then
		unpack_tarball
	else
		ensure_ksrc
		build_suite
	fi
	flock -u 9
	make_initrd "${CMD[@]}"
	run_guest || rc=$?
	# Under TCG kernels have been seen to die or hang before init, the
	# emulator's doing: a stock one patching its own text (int3 in
	# sched_clock_cpu, once in many boots), a debug one in a KASAN storm
	# from swapper.  Such a kernel gets one more boot; a second is the
	# verdict.
	if [[ $rc -eq 125 ]] && ! grep -qa "$BOOT_MARKER" "$RUN/console.log"; then
		log "the kernel did not reach init: booting it once more"
		mv "$RUN/console.log" "$RUN/console-boot1.log"
		ACCEL=$USED_ACCEL
		rc=0
		run_guest || rc=$?
	fi
	QEMU_PID=""
	if [[ -n $OUTDIR && $rc -ne 124 && $rc -ne 125 ]]; then
		copy_output || rc=$?
	fi
	# A failed run shows its splat too: often the reason it failed.
	if [[ $rc -ne 124 && $rc -ne 125 ]]; then
		check_splat || rc=1
	fi
	exit "$rc"
}

main "$@"
