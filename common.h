/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AppArmor selftest helpers: what the running system supports, running
 * its tools, and task and peer labels.  Test policy lives in policy.h.
 */

#ifndef _SELFTESTS_APPARMOR_COMMON_H
#define _SELFTESTS_APPARMOR_COMMON_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#define AA_SECURITYFS "/sys/kernel/security/apparmor"

/* The two policy ABIs a profile can be compiled for. */
enum aa_abi {
	AA_ABI_OLD,	/* abi/4.0: coarse "network unix" rules */
	AA_ABI_NEW,	/* abi/5.0: fine-grained "unix" rules (network_v9) */
	AA_ABI_3,	/* abi/3.0, as some shipped profiles pin it */
	AA_ABI_NONE,	/* no abi line: the parser's default, as most ship */
	AA_ABI_COUNT,
};

struct aa_env {
	bool enabled;
	bool have_v9_unix;	/* the kernel mediates unix sockets at send */
	char parser[PATH_MAX];
	/* Why a test under this ABI cannot run; empty when it can. */
	char skip[AA_ABI_COUNT][160];
};

/*
 * Probes the system once and fills @env: root, AppArmor active,
 * apparmor_parser present, and whether it encodes NEW ABI unix rules
 * without downgrading them (as AppArmor's own regression tests check).
 */
void aa_env_probe(struct aa_env *env);

/*
 * Runs @argv with stdout and stderr captured into @out.  Returns its exit
 * status, or -errno when it could not be run or did not exit.
 */
int aa_run_capture(char *const argv[], char *out, size_t outlen);

/*
 * Waits up to @ms for the child @pid to exit, kills it if it has not, and
 * reaps it.  Returns its wait status, -ETIMEDOUT if it had to be killed,
 * or -ECHILD.
 */
int aa_reap(pid_t pid, int ms);

/*
 * This program at a second path @path, where an exec rule of its own can
 * match it: a hard link, or a copy across file systems.  0 or -1.
 */
int aa_link_program(const char *self, const char *path);

/* This program's path, read once from /proc/self/exe; exits if it cannot. */
const char *aa_self_exe(void);

/* Milliseconds of CLOCK_MONOTONIC since @t0. */
long ms_since(const struct timespec *t0);

/* First line of a file, without its newline; 0 or -errno. */
int aa_read_line(const char *path, char *buf, size_t len);
/* The calling task's label as the kernel prints it; 0 or -errno. */
int aa_task_label(char *buf, size_t len);

int aa_confine(const char *profile);
/* Stacks @profile onto the calling task's label (aa_stack_profile()). */
int aa_stack(const char *profile);
/* The calling task's next execve() changes to @profile (aa_change_onexec()). */
int aa_confine_onexec(const char *profile);
/* The calling task's next execve() stacks @profile (aa_stack_onexec()). */
int aa_stack_exec(const char *profile);
/*
 * Returns 0 if the calling task's label is @profile in enforce mode, or
 * complain mode if @complain.
 */
int aa_check_label(const char *profile, bool complain);
/* Returns 0 if the peer of socket @fd is labelled @profile (NULL: unconfined). */
int aa_check_peer_label(int fd, const char *profile, bool complain);

#endif /* _SELFTESTS_APPARMOR_COMMON_H */
