# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# What .ci/run expects of a kernel's TAP, sourced: the tests that FAIL
# without each fix of .ci/fixes, and the checks that they, and only
# they, do.

# The test of that leak, FAILing on every kernel without 0002.
OPEN_LEAK='global\.fix_update_sk_ctx_'
# The tests FAILing on every kernel without 0003: the peer's profile
# replaced or removed (what SO_PEERSEC reports then, whether a sender's
# peer=(label=) rule matches it), and the task's
# own replaced under a socketpair (whose other end is the task's too).
PEER_TESTS='global\.(old|new)_abi_(peer_replaced_by_narrower|peer_replaced_by_wider|peer_removed|peer_label_after_replacement|peer_rule_after_replacement|replaced_while_connected|first_op_after_replacement)$'
# The tests FAILing on every kernel without 0004: a regular file handed
# over by any route (mprotect() maps it readable first, which revalidates
# it), a directory or a FIFO by a route that revalidates before the
# operation (SCM_RIGHTS, an exec).
CARRIED_TESTS='carried\.((scm_rights_(stream|dgram|seqpacket)|exec_rule|change_onexec)\.(file|dir|fifo)|(fork_change_profile|stack)\.file)$'
# The test FAILing on every kernel without 0005 (and without debug
# asserts, which run the replacement it restores): a stacked task's
# sockets on paths after one of its profiles is really replaced.
RELABEL_TESTS='global\.new_abi_stack_after_replacement$'
# The random lane (unix_history_tests.c): on a kernel without one of
# the fixes it may FAIL, by chance; on one with them all it must pass.
HISTORY='history\.(old|new)_abi\.[a-z_]+$'

# expect_tap LOG PATTERN: at least one line of the TAP in LOG matches.
expect_tap()
{
	grep -Eq "$2" "$1" || {
		echo "# no line matching '$2' in $1"
		return 1
	}
}

no_tap()
{
	if grep -E "$2" "$1"; then
		echo "# unexpected lines matching '$2' in $1"
		return 1
	fi
}

# Shapes and operations of the stacking bug, each of which must show in a
# row that failed: B refusing this peer (not only B without unix rules),
# a second stack refusing what the first allowed, a bound end's lock
# refused by B's file rules, and readv, splice, io_uring READ and WRITE.
STACK_ROWS=("B's unix rules for another peer" "then C without unix rules"
	"B without unix rules or k" "readv used" "splice to a pipe used"
	"io_uring READ used" "io_uring WRITE used")

# stack_failed LOG: every stack_handoff test FAILs, each of STACK_ROWS in
# a failed row, and they and their program are the only failures but for
# the update_peer_ctx() tests (on kernels without Debian's fix:
# fixes_failed), the open leak's test (on every kernel without
# .ci/fixes/0002), PEER_TESTS (peer_failed), CARRIED_TESTS
# (carried_failed, or carried_passed), RELABEL_TESTS (relabel_failed)
# and their programs.
stack_failed()
{
	local row n all

	n=$(grep -cE '^(# )?not ok [0-9]+ stack_handoff\.' "$1")
	all=$(grep -cE '^(# )?(not )?ok [0-9]+ stack_handoff\.' "$1")
	echo "# $n of $all stack_handoff tests FAIL"
	[[ $n -gt 0 && $n -eq $all ]] || return 1
	for row in "${STACK_ROWS[@]}"; do
		grep -F -- "$row" "$1" | grep 'expected .*, got ' >/dev/null || {
			echo "# no failed row of '$row' in $1"
			return 1
		}
	done
	! grep -E '^(# )?not ok' "$1" |
			grep -Ev "stack_handoff\.|selftests: apparmor: aa_unix_mediation|global\.fix_update_peer_ctx_|$OPEN_LEAK|selftests: apparmor: unix_fixes_test|${PEER_TESTS%$}|${HISTORY%$}|${CARRIED_TESTS%$}|${RELABEL_TESTS%$}"
}

# peer_failed LOG: every one of PEER_TESTS FAILs (kernels without
# .ci/fixes/0003), none passes or fails as expected.
peer_failed()
{
	local n all re=${PEER_TESTS#^}

	n=$(grep -cE "^(# )?not ok [0-9]+ $re" "$1")
	all=$(grep -cE "^(# )?(not )?ok [0-9]+ ${re%$}( # .*)?$" "$1")
	echo "# $n of $all PEER_TESTS FAIL"
	[[ $n -gt 0 && $n -eq $all ]]
}

# relabel_failed LOG: RELABEL_TESTS FAIL (kernels without
# .ci/fixes/0005), only in rows where A is replaced after the stack.
relabel_failed()
{
	expect_tap "$1" "^(# )?not ok [0-9]+ ${RELABEL_TESTS#^}" &&
		grep 'U must refuse' "$1" | grep -q "A//&U.*A's profile is replaced" &&
		! grep 'U must refuse' "$1" | grep "A's profile is replaced.*A//&U"
}

# Operations beyond the open mode, each of which must show in a failed
# carried row where the file fix is missing.
CARRIED_ROWS=("flock(LOCK_SH), U lacking k" "flock(LOCK_EX), U lacking k"
	"fcntl(F_SETLK, F_RDLCK), U lacking k"
	"fcntl(F_SETLK, F_WRLCK), U lacking k" "mmap(PROT_EXEC), U lacking m"
	"mprotect(PROT_EXEC), U lacking m")

# carried_failed LOG: every one of CARRIED_TESTS FAILs (kernels without
# .ci/fixes/0004), each of CARRIED_ROWS in a failed row; the other
# carried tests pass.
carried_failed()
{
	local row n all

	n=$(grep -cE "^(# )?not ok [0-9]+ ${CARRIED_TESTS#^}" "$1")
	all=$(grep -cE '^(# )?(not )?ok [0-9]+ carried\.' "$1")
	echo "# $n of $all carried tests FAIL"
	[[ $n -gt 0 ]] && no_tap "$1" "^(# )?ok [0-9]+ ${CARRIED_TESTS#^}" &&
		expect_tap "$1" '^(# )?ok [0-9]+ carried\.' || return 1
	for row in "${CARRIED_ROWS[@]}"; do
		grep -F -- "$row" "$1" | grep 'expected .*, got ' >/dev/null || {
			echo "# no failed row of '$row' in $1"
			return 1
		}
	done
	# Each by name, as the step's log shows it.
	grep -E '^(# )?not ok [0-9]+ carried\.' "$1"
	! grep -E '^(# )?not ok [0-9]+ carried\.' "$1" |
		grep -Ev "${CARRIED_TESTS%$}"
}

# carried_passed LOG: every carried test passes (kernels with 0004).
carried_passed()
{
	expect_tap "$1" '^(# )?ok [0-9]+ carried\.' &&
		no_tap "$1" '^(# )?not ok [0-9]+ carried\.'
}

# fixes_failed LOG: the update_peer_ctx() regression tests all FAIL, and
# the open leak's; they and their program are the only failures but for
# the stack_handoff tests and theirs (stack_failed); the kernel oopsed.
fixes_failed()
{
	expect_tap "$1" 'FAIL: kernel splat during the run' &&
		expect_tap "$1" 'the kernel reported: BUG: kernel NULL pointer dereference' &&
		expect_tap "$1" '^# not ok [0-9]+ global\.fix_update_peer_ctx_' &&
		expect_tap "$1" "^# not ok [0-9]+ $OPEN_LEAK" &&
		no_tap "$1" '^# ok [0-9]+ global\.fix_update_peer_ctx_' &&
		! grep -E '^(# )?not ok' "$1" |
			grep -Ev "global\.fix_update_peer_ctx_|$OPEN_LEAK|selftests: apparmor: unix_fixes_test|stack_handoff\.|selftests: apparmor: aa_unix_mediation|${PEER_TESTS%$}|${HISTORY%$}|${CARRIED_TESTS%$}|${RELABEL_TESTS%$}"
}
