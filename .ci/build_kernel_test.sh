#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Logic tests of build_kernel.sh on a stand-in kernel tree whose Makefile
# "compiles" each src/*.c into an object and the objects into a bzImage,
# so that what is rebuilt, what is cached and what is left untouched can
# be checked in seconds.  Called by .ci/run; prints TAP, exits 0 when all
# pass.

set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=$(mktemp -d /tmp/build_kernel_test.XXXXXX)
trap 'rm -rf -- "$tmp"' EXIT
tree=$tmp/tree
out=$tmp/kbuild
# shellcheck source=.ci/tap.sh
. "$here/.ci/tap.sh"

mkdir -p "$tree/src" "$tree/arch/x86" "$tree/scripts/kconfig"
# O= is absolute; make -C puts us in the (mirrored) tree.
cat >"$tree/Makefile" <<'EOF'
OBJS := $(patsubst src/%.c,$(O)/%.o,$(wildcard src/*.c))
tinyconfig:
	echo CONFIG_TINY=y >$(O)/.config
olddefconfig:
kernelversion:
	@echo 9.9.9
bzImage: $(O)/arch/x86/boot/bzImage
$(O)/%.o: src/%.c
	echo "cc $*" >>$(O)/cc.log
	cp $< $@
$(O)/arch/x86/boot/bzImage: $(OBJS)
	mkdir -p $(dir $@)
	cat $(sort $^) >$@
EOF
cat >"$tree/scripts/kconfig/merge_config.sh" <<'EOF'
#!/bin/sh
shift 2
cat "$@" >>.config
EOF
chmod +x "$tree/scripts/kconfig/merge_config.sh"
printf 'a\nb\nc\n' >"$tree/src/one.c"
printf 'x\ny\nz\n' >"$tree/src/two.c"

# Patches as git format-patch writes them.
cat >"$tmp/good.patch" <<'EOF'
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
Subject: [PATCH] one: b becomes B

---
 src/one.c | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/src/one.c b/src/one.c
--- a/src/one.c
+++ b/src/one.c
@@ -1,3 +1,3 @@
 a
-b
+B
 c
EOF
cat >"$tmp/bad.patch" <<'EOF'
diff --git a/src/two.c b/src/two.c
--- a/src/two.c
+++ b/src/two.c
@@ -1,3 +1,3 @@
 x
-not there
+Y
 z
EOF
cat >"$tmp/new.patch" <<'EOF'
diff --git a/src/three.c b/src/three.c
new file mode 100644
--- /dev/null
+++ b/src/three.c
@@ -0,0 +1 @@
+new
EOF

sum() {
	(cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum)
}

# build ARGS...: run build_kernel.sh, keep its status, output and the
# objects it compiled this time.
build() {
	rm -f "$out"/*/obj/cc.log
	"$here/build_kernel.sh" "$@" "$tree" "$out" >"$tmp/stdout" 2>"$tmp/stderr"
	rc=$?
	img=$(tail -n 1 "$tmp/stdout")
	cc=$(cat "$out"/*/obj/cc.log 2>/dev/null | sort | paste -sd ' ')
}

tree_before=$(sum "$tree")

build
check "unpatched build succeeds" test "$rc" -eq 0
check "the image is the tree's" test "$(cat "$img")" = "$(printf 'a\nb\nc\nx\ny\nz')"
check "first build compiles everything ($cc)" test "$cc" = "cc one cc two"
stock=$img

build -p "$tmp/good.patch"
check "patched build succeeds" test "$rc" -eq 0
check "the patch is in the image" grep -qx B "$img"
check "only the patched file is compiled ($cc)" test "$cc" = "cc one"
check "build-info names the patch" grep -q '^patch: good.patch \[PATCH\] one: b becomes B$' "$(dirname "$img")/build-info"
good=$img
mirror=$(sum "$out"/*/src)

build -p "$tmp/good.patch" -p "$tmp/bad.patch"
check "a patch that does not apply: exit 125" test "$rc" -eq 125
check "the error names the patch" grep -q 'patch bad.patch does not apply' "$tmp/stderr"
check "the mirror is as it was" test "$(sum "$out"/*/src)" = "$mirror"
check "nothing was compiled ($cc)" test -z "$cc"

build
check "unpatched again: the cached image" test "$rc" -eq 0 -a "$img" = "$stock"
check "said so" grep -q 'already built' "$tmp/stderr"
check "the mirror has the original file back" cmp -s "$tree/src/one.c" "$out"/*/src/src/one.c

build -p "$tmp/new.patch"
check "a patch that adds a file" test "$rc" -eq 0
check "the restored and the new file are compiled ($cc)" test "$cc" = "cc one cc three"
check "the image is the tree's plus the new file" test "$(cat "$img")" = "$(printf 'a\nb\nc\nnew\nx\ny\nz')"

build -p "$tmp/good.patch"
check "back to the first patch: its cached image" test "$rc" -eq 0 -a "$img" = "$good"
check "the added file is gone from the mirror" test ! -e "$out"/*/src/src/three.c
check "an unchanged tree: the mirror is not synced again" \
	grep -q 'unchanged since the mirror.s last sync' "$tmp/stderr"

check "the tree itself was never written to" test "$(sum "$tree")" = "$tree_before"

printf 'x\nY\nz\n' >"$tree/src/two.c"
build -p "$tmp/good.patch"
check "a changed tree is rebuilt, not served from the cache" test "$rc" -eq 0 -a "$(cat "$img")" = "$(printf 'a\nB\nc\nx\nY\nz')"

# A file replaced by one with an older time, in a directory whose time
# is then set back, as tar leaves them: only the directory's inode time
# is new.
printf 'x\nY2\nz\n' >"$tmp/two.c"
touch -d '2000-01-01' "$tmp/two.c"
mv "$tmp/two.c" "$tree/src/two.c"
touch -d '2000-01-01' "$tree/src"
build -p "$tmp/good.patch"
check "a file replaced by an older one reaches the mirror" \
	cmp -s "$tree/src/two.c" "$(echo "$out"/*/src/src/two.c)"

# Options dropped by olddefconfig, in a tree (its own work directory)
# whose Kconfig defines PROC_SYSCTL but not SYSCTL, and whose
# olddefconfig drops both (config.vm asks for both): only the one it
# defines is reported; the other is another version's (7.3's SYSCTL).
tree=$tmp/tree2
cp -a "$tmp/tree" "$tree"
printf 'config PROC_SYSCTL\n\tbool\n' >"$tree/Kconfig"
cat >>"$tree/Makefile" <<'EOF'
olddefconfig:
	sed -i -e /CONFIG_PROC_SYSCTL=/d -e /CONFIG_SYSCTL=/d $(O)/.config
EOF
build
check "a known option dropped: exit 125" test "$rc" -eq 125
check "the error names it" grep -q 'CONFIG_PROC_SYSCTL=y (got: absent)' "$tmp/stderr"
check "and only it" test "$(grep -c '(got: ' "$tmp/stderr")" -eq 1

tap_done
