/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AppArmor selftest helpers: what the running system supports, and policy
 * generated, loaded and removed by the test itself.
 */

#ifndef _SELFTESTS_APPARMOR_COMMON_H
#define _SELFTESTS_APPARMOR_COMMON_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#define AA_SECURITYFS "/sys/kernel/security/apparmor"

/* The two policy ABIs a profile can be compiled for. */
enum aa_abi {
	AA_ABI_OLD,	/* abi/4.0: coarse "network unix" rules */
	AA_ABI_NEW,	/* abi/5.0: fine-grained "unix" rules (network_v9) */
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
 * Profiles are named <prefix>.<pid>.<name> so that two runs never collide
 * and a crashed run's leftovers can be recognised by their dead pid.
 */
#define AA_NAME_MAX 128
#define AA_MAX_PROFILES 256

struct aa_policy;

/* @dir holds the policy files; @prefix starts every profile name. */
struct aa_policy *aa_policy_new(const char *dir, const char *prefix);
void aa_policy_free(struct aa_policy *pol);
/* Queues a profile; returns its full name, owned by @pol. */
const char *aa_policy_add(struct aa_policy *pol, enum aa_abi abi,
			  const char *name, const char *rules);
/*
 * Compiles and loads every queued profile of the given ABIs in a single
 * apparmor_parser run.  On failure, @err holds the parser's message.
 */
int aa_policy_load(struct aa_policy *pol, const char *parser,
		   const bool abis[AA_ABI_COUNT], char *err, size_t errlen);
/* Removes the queued profiles from the kernel and the policy files. */
void aa_policy_unload(struct aa_policy *pol);

/*
 * Removes the profiles, and the entries of @tmpdir, named @prefix.<pid>...
 * whose process is gone.
 */
void aa_cleanup_stale(const char *tmpdir, const char *prefix);

/* First line of a file, without its newline; 0 or -errno. */
int aa_read_line(const char *path, char *buf, size_t len);
/* The calling task's label as the kernel prints it; 0 or -errno. */
int aa_task_label(char *buf, size_t len);

int aa_confine(const char *profile);
/* Returns 0 if the calling task's label is @profile in enforce mode. */
int aa_check_label(const char *profile);
/* Returns 0 if the peer of socket @fd is labelled @profile (NULL: unconfined). */
int aa_check_peer_label(int fd, const char *profile);

#endif /* _SELFTESTS_APPARMOR_COMMON_H */
