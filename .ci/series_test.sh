#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The series .ci/make_series.sh makes, tried as upstream would: applied
# with git am to pristine kernel trees, checkpatch --strict on each patch,
# built with make kselftest-all and make -C tools/testing/selftests, packed
# with make kselftest-gen_tar, and that tarball run in a guest as LKFT
# runs kselftests (unpacked on a root filesystem without a compiler,
# run_kselftest.sh -c apparmor, the timeout from "settings"), judged from
# its KTAP alone; and beside it, the same tarball on the same kernel as a
# LAVA job (.ci/lava_test.sh).
#
# Usage: .ci/series_test.sh -k BZIMAGE OUTDIR KERNEL_TREE [KERNEL_TREE...]
#        .ci/series_test.sh --prepare OUTDIR KERNEL_TREE [KERNEL_TREE...]
#        .ci/series_test.sh --pristine KERNEL_TREE...
#
# --prepare does all but the guests, and keeps its TAP in OUTDIR: a -k run
# with the same OUTDIR and trees then prints it and runs only the guests.
# CI prepares ahead, on idle cores, as the tarball needs no kernel.
# The tarball of the first tree is run on BZIMAGE, a kernel with every fix
# the series carries: on a released kernel the stacking tests FAIL.  A
# pristine tree is a git
# repository of KERNEL_TREE's tracked files (Debian's .gitignore entry that
# hides the whole tree aside), made once under $VMTEST_CACHE/pristine.

set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
# shellcheck source=.ci/tap.sh
. .ci/tap.sh
CACHE=${VMTEST_CACHE:-$HOME/.cache/apparmor-selftests}
PRISTINE_ONLY=0
KERNEL=""
if [[ ${1:-} == --pristine && $# -ge 2 ]]; then
	PRISTINE_ONLY=1
	shift
elif [[ ${1:-} == --prepare && $# -ge 3 ]]; then
	shift
	OUT=$(realpath -m "$1")
	shift
elif [[ ${1:-} != -k || $# -lt 4 ]]; then
	echo "usage: $0 -k BZIMAGE OUTDIR KERNEL_TREE [KERNEL_TREE...]" >&2
	echo "       $0 --prepare OUTDIR KERNEL_TREE [KERNEL_TREE...]" >&2
	echo "       $0 --pristine KERNEL_TREE..." >&2
	exit 2
else
	KERNEL=$(realpath "$2")
	shift 2
	OUT=$(realpath -m "$1")
	shift
fi
ST=tools/testing/selftests
# One patch per message, and the programs the series installs.
MSGS=(.ci/series/[0-9]*.msg .ci/fixes/[0-9]*.patch)
PROGS=(aa_unix_mediation unix_fixes_test)

# The series is signed off by whoever runs this; a CI machine without a
# git identity signs off as the author of the commit under test.
if ! git config user.name >/dev/null || ! git config user.email >/dev/null; then
	GIT_CONFIG_VALUE_0=$(git log -1 --format=%an)
	GIT_CONFIG_VALUE_1=$(git log -1 --format=%ae)
	export GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=user.name \
		GIT_CONFIG_KEY_1=user.email GIT_CONFIG_VALUE_0 GIT_CONFIG_VALUE_1
fi
git_id=(-c user.name="$(git config user.name)"
	-c user.email="$(git config user.email)")

# pristine TREE: print the path of TREE's pristine git repository.  One
# maker at a time: .ci/run makes them ahead (--pristine), beside the steps
# before the series.
pristine()
{
	local src=$1 dir

	[[ -f $src/Makefile ]] || return 1
	dir=$CACHE/pristine/$(basename "$src")
	mkdir -p "$CACHE/pristine" || return 1
	exec 8>"$CACHE/pristine/lock"
	flock 8
	if [[ ! -f $dir/.git/pristine ]]; then
		rm -rf "$dir" || return 1
		# Hard links: git and make replace files, never write into them.
		cp -al "$src" "$dir" || return 1
		rm -rf "${dir:?}/$ST/apparmor"
		sed -i '/^# Debian packaging: ignore everything/,/^!\/debian\/$/d' \
			"$dir/.gitignore"
		# No automatic gc: after the first commit of its 100,000 loose
		# objects, git would pack them beside the guests, about 110 s of
		# CPU a tree, for a repository only ever reset and patched.
		(cd "$dir" && git init -q && git config gc.auto 0 &&
			git config maintenance.auto false && git add -A &&
			git "${git_id[@]}" commit -q -m "pristine $(basename "$src")") ||
			return 1
		touch "$dir/.git/pristine"
	fi
	exec 8>&-
	echo "$dir"
}

if [[ $PRISTINE_ONLY -eq 1 ]]; then
	for tree in "$@"; do
		pristine "$tree" >/dev/null || exit 1
	done
	exit 0
fi

# unpatch REPO: back to the pristine commit, nothing else in the tree.
unpatch()
{
	git -C "$1" am --abort 2>/dev/null
	git -C "$1" reset -q --hard "$(git -C "$1" rev-list --max-parents=0 HEAD)" &&
		git -C "$1" clean -qfdx
}

# checkpatch_ok TREE PATCH N VER: no error and no warning, but for a commit id
# that a tree without history cannot look up, and new files in a
# directory patch 1 already put in MAINTAINERS.
checkpatch_ok()
{
	local allow=UNKNOWN_COMMIT_ID

	[[ $3 -gt 1 ]] && allow+=",FILE_PATH_CHANGES"
	local log

	log=$OUT/$4/$(basename "$2").cp

	# --terse prints one line per report, nothing when there is none;
	# exit status 1 says there were reports (CHECKs too), 2 and up that it
	# could not run.
	# Debian's python3, with python3-ply, for the SPDX check.
	PATH=/usr/bin:$PATH perl "$1/scripts/checkpatch.pl" --strict --terse \
		--show-types --ignore "$allow" "$2" >"$log" 2>&1
	[[ $? -le 1 ]] && ! grep -E ': (ERROR|WARNING):' "$log"
}

# maintained TREE: get_maintainer.pl sends the suite to AppArmor's list.
maintained()
{
	(cd "$1" && ./scripts/get_maintainer.pl --no-git --no-rolestats \
		-f "$ST/apparmor/${PROGS[0]}.c") 2>/dev/null |
		tee "$OUT/get_maintainer" | grep -q '^apparmor@lists'
}

# guests: the tarball as LKFT runs it and as a LAVA job, in the
# background while the other trees are built.  The root filesystem has
# no compiler: the tarball is all there is.  The collection takes about
# 330 s beside two other guests, and over 600 s (vmtest.sh's limit)
# beside CI's benchmark boots: 1200 s, as the LAVA job's 20 minutes.
guests()
{
	bash .ci/lava_test.sh "$OUT/lava" "$tarball" "$KERNEL" \
		>"$OUT/lava.log" 2>&1 &
	lava=$!
	./vmtest.sh -T "$tarball" -k "$KERNEL" --timeout 1200 -- sh -c \
		'command -v cc gcc >/dev/null && echo "compiler found"; \
		 exec /kselftest/run_kselftest.sh -c apparmor' >"$OUT/tarball.tap" 2>&1 &
	lkft=$!
}

# prepare_trees TREE...: all but the guests, which start (with -k) as
# soon as the first tree's tarball is made.
prepare_trees()
{
	local tree ver repo series files pats p idx t

	for tree in "$@"; do
		ver=$(make -s -C "$tree" kernelversion)
		repo=$(pristine "$tree") || { check "pristine $ver" false; continue; }
		# A run stopped after git am left the series applied.
		unpatch "$repo"
		# As for posting: the series made against the tree it goes to.
		series=$OUT/$ver/series
		mkdir -p "$OUT/$ver"
		bash .ci/make_series.sh -o "$series" "$repo" >/dev/null
		files=("$series"/*.patch)
		# The patches, in order, without the cover letter.
		pats=()
		for p in "$series"/[0-9][0-9][0-9][0-9]-*.patch; do
			[[ $p == */0000-cover-letter.patch ]] || pats+=("$p")
		done
		check "$ver: a patch per message and kernel fix, ${#MSGS[@]}, and a cover letter (${#files[@]} files)" \
			test "${#files[@]}" -eq $((${#MSGS[@]} + 1))
		check "$ver: no patch names .ci/, which stays out" \
			sh -c '! grep -h "^+" "$@" | grep -F .ci/' sh "${pats[@]}"
		# What the patches add is the same whatever the base.
		grep -h '^+' "${pats[@]}" >"$OUT/$ver/added"
		[[ -f $OUT/added ]] || cp "$OUT/$ver/added" "$OUT/added"
		check "$ver: the patches add the same lines as for the first tree" \
			cmp -s "$OUT/added" "$OUT/$ver/added"
		check "$ver: git am applies the series" \
			git -C "$repo" "${git_id[@]}" am -q "${pats[@]}"
		idx=0
		for p in "${pats[@]}"; do
			idx=$((idx + 1))
			check "$ver: checkpatch --strict $(basename "$p")" \
				checkpatch_ok "$repo" "$p" "$idx" "$ver"
		done
		[[ -f $OUT/diffstat ]] ||
			git apply --stat "${pats[@]}" >"$OUT/diffstat"
		check "$ver: get_maintainer.pl names the AppArmor list for the suite" \
			maintained "$repo"
		check "$ver: make tinyconfig" make -s -C "$repo" tinyconfig
		check "$ver: make kselftest-all TARGETS=apparmor" \
			make -s -j"$(nproc)" -C "$repo" kselftest-all TARGETS=apparmor \
			USERCFLAGS=-Werror
		check "$ver: make -C $ST TARGETS=apparmor" \
			make -s -j"$(nproc)" -C "$repo/$ST" TARGETS=apparmor \
			USERCFLAGS=-Werror
		check "$ver: make kselftest-gen_tar TARGETS=apparmor" \
			make -s -C "$repo" kselftest-gen_tar TARGETS=apparmor
		t=$repo/$ST/kselftest_install/kselftest-packages/kselftest.tar.gz
		for p in "${PROGS[@]}" af_unix_send_perf; do
			check "$ver: the tarball holds $p" \
				sh -c "tar -tzf '$t' | grep -qx './apparmor/$p'"
		done
		if [[ -z $tarball && -f $t ]] &&
			cp "$t" "$OUT/kselftest.tar.gz"; then
			tarball=$OUT/kselftest.tar.gz
			[[ -z $KERNEL ]] || guests
		fi
		unpatch "$repo"
	done
}

tarball=""
lava=""
lkft=""
key="$(git rev-parse HEAD) $*"
if [[ -n $KERNEL && -f $OUT/prepared &&
	$(head -n 1 "$OUT/prepared") == "$key" ]]; then
	cat "$OUT/prepare.tap"
	read -r n failed < <(sed -n 2p "$OUT/prepared")
	if [[ -f $OUT/kselftest.tar.gz ]]; then
		tarball=$OUT/kselftest.tar.gz
		guests
	fi
else
	rm -rf "$OUT" && mkdir -p "$OUT"
	if [[ -z $KERNEL ]]; then
		prepare_trees "$@" >"$OUT/prepare.tap"
		printf '%s\n%s %s\n' "$key" "$n" "$failed" >"$OUT/prepared"
		[[ $failed -eq 0 ]]
		exit
	fi
	prepare_trees "$@"
fi

if [[ -z $lkft ]]; then
	check "the first tree made a tarball" false
	tap_done
	exit
fi
wait "$lkft"
rc=$?
grep -E '^(not )?ok |^# Totals|^# # Totals|compiler found' "$OUT/tarball.tap" |
	sed 's/^/# /'
check "tarball in the guest: run_kselftest.sh exit status 0 (got $rc)" \
	test "$rc" -eq 0
check "tarball: no compiler in the root filesystem" \
	sh -c "! grep -q '^compiler found' '$OUT/tarball.tap'"
for t in "${PROGS[@]}" af_unix_send_perf; do
	check "tarball KTAP: ok selftests: apparmor: $t" \
		grep -q "^ok [0-9]* selftests: apparmor: $t\$" "$OUT/tarball.tap"
done
check "tarball KTAP: no not ok" \
	sh -c "! grep -q 'not ok' '$OUT/tarball.tap'"
# plan_passed: every AF_UNIX program passed all the tests its KTAP plan
# announced, or failed them as expected (open questions of SEMANTICS),
# none skipped.
plan_passed()
{
	awk -v want="${#PROGS[@]}" '
		/^# 1\.\.[0-9]+$/ { plan = substr($2, 4) }
		/^# # Totals: / {
			split($4, p, ":")
			split($6, x, ":")
			pass = p[2] + x[2]
		}
		/^(not )?ok [0-9]+ selftests: apparmor: (aa_unix_mediation|unix_fixes_test)$/ {
			printf "#   %s: plan %s, passed %s\n", $NF, plan, pass
			n++
			if (plan == "" || pass != plan)
				bad++
			plan = pass = ""
		}
		END { exit !(n == want && !bad) }' "$OUT/tarball.tap"
}
check "tarball KTAP: each AF_UNIX program passes its whole plan" plan_passed
wait "$lava"
rc=$?
grep '^# ' "$OUT/lava.log"
check "LAVA job (lava-run): exit status 0, every test case passes" \
	test "$rc" -eq 0
cat "$OUT/diffstat"
tap_done
