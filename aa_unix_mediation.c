// SPDX-License-Identifier: GPL-2.0
/*
 * AppArmor's mediation of AF_UNIX sockets, under the OLD policy ABI
 * (abi/4.0, coarse "network unix" rules) and the NEW one (abi/5.0,
 * fine-grained "unix" rules, network_v9/af_unix, v6.17+): the functional
 * tests of this directory, one program.
 *
 * The tests, an area a file; "-f FIXTURE", "-t TEST" or
 * "-r FIXTURE.VARIANT.TEST" picks any of them:
 *
 *   unix_rules_tests.c     each rule and permission, in conversations
 *   unix_handoff_tests.c   sockets that change hands, fork, exec, io_uring
 *   unix_labels_tests.c    stacked labels and replaced profiles
 *   unix_peer_tests.c      the peer's profile replaced or removed
 *   unix_audit_tests.c     denial records, enforce and complain mode
 *   unix_profiles_tests.c  profiles as systems ship them
 *   unix_stack_tests.c     sockets carried onto a stack (A//&B)
 *   unix_history_tests.c   random histories judged by history independence
 *   unix_history_policies.c  the same history under related policies
 *   unix_history_profiles.c  the lane's profiles, registered once a run
 *   unix_history_replaced.c  the lane's profiles replaced mid-history
 *   unix_carried_tests.c   files a unix socket or an exec hands to a profile
 *   unix_history_files.c   the random lane over such files
 *
 * What they are built on:
 *
 *   unix_test.h            the check context, the SKIPs, one run asserted
 *   unix_variants.h        the af_unix fixture: each socket kind and type
 *   unix_scenario.c        a conversation between two confined processes
 *   unix_perms.c           where one missing permission stops it, by ABI
 *   unix_handoff.c         a socket made under one label, used under another
 *   unix_history.c         the random lane's generator of histories
 *   unix_carried.c         a file opened under one label, used under another
 *   unix_core.c            child processes, confinement, fd passing
 *   policy.c               the run's profiles, compiled in one parser run
 *   profile.c              a profile's text, from rules or a lack of one
 *   audit_log.c            the audit records of a run
 *   common.c               what the kernel and the parser can do
 *
 * The regression tests of fixes whose absence oopses a kernel are a
 * program of their own, run last (see the Makefile).
 *
 * kselftest_harness.h keeps its list of tests per translation unit, so
 * the areas are included here, not linked: one program, one list.
 */

#include "unix_rules_tests.c"
#include "unix_handoff_tests.c"
#include "unix_labels_tests.c"
#include "unix_peer_tests.c"
#include "unix_audit_tests.c"
#include "unix_profiles_tests.c"
#include "unix_stack_tests.c"
#include "unix_history_tests.c"
#include "unix_history_policies.c"
#include "unix_history_profiles.c"
#include "unix_history_replaced.c"
#include "unix_carried_tests.c"
#include "unix_history_files.c"

/* Each area's checks by ABI, for the one compile of every profile. */
static const struct checks *const areas[] = {
	rules_checks,		/* unix_rules_tests.c */
	handoff_checks,		/* unix_handoff_tests.c */
	labels_checks,		/* unix_labels_tests.c */
	peer_checks,		/* unix_peer_tests.c */
	audit_checks,		/* unix_audit_tests.c */
	profiles_checks,	/* unix_profiles_tests.c */
	stack_checks,		/* unix_stack_tests.c */
	history_checks,		/* unix_history_tests.c */
	carried_checks,		/* unix_carried_tests.c */
	history_files_checks,	/* unix_history_files.c */
};

int main(int argc, char **argv)
{
	add_exec_reentry(handoff_exec_main);	/* unix_handoff.c */
	add_exec_reentry(carried_exec_main);	/* unix_carried.c */
	return unix_test_main(argc, argv, areas, ARRAY_SIZE(areas));
}
