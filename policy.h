/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The AppArmor profiles one run of a test program generates, loads and
 * removes: the only place that knows their names.
 *
 * A run owns a private directory made by mkdtemp() under /tmp, holding the
 * policy files, the test's pathname sockets and an "owner" file that the
 * run keeps locked (flock) while it or any process it forked is alive.
 * The file lists the profiles before they are loaded.  Profile names are
 * <prefix>.<run id>.<name>, the run id being the directory's random
 * suffix, so runs in different PID namespaces cannot collide.  A run
 * whose owner file is no longer locked is dead: aa_cleanup_stale()
 * removes exactly what its owner file lists, and nothing of a live run.
 */

#ifndef _SELFTESTS_APPARMOR_POLICY_H
#define _SELFTESTS_APPARMOR_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "common.h"

struct aa_policy;

/*
 * Creates the run's directory and owner file.  Returns NULL with the
 * reason in @err when it cannot.
 */
struct aa_policy *aa_policy_new(const char *prefix, char *err, size_t errlen);

/* Unloads the run's profiles and removes its files; only in its creator. */
void aa_policy_free(struct aa_policy *pol);

/* The run's private directory. */
const char *aa_policy_dir(const struct aa_policy *pol);

/*
 * The full name a profile called @name gets in this run (for peer label
 * rules that name it); 0, or -ENAMETOOLONG.
 */
int aa_policy_name(const struct aa_policy *pol, const char *name, char *buf,
		   size_t len);

/*
 * Registers a profile and returns its full name, owned by @pol.  @name
 * NULL numbers it.  A profile with the same ABI, name and rules is only
 * registered once: the name of the first one is returned.  NULL when the
 * registry is full or out of memory.
 */
const char *aa_policy_add(struct aa_policy *pol, enum aa_abi abi,
			  const char *name, const char *rules);

/* The full name of a registered profile, or NULL. */
const char *aa_policy_find(const struct aa_policy *pol, enum aa_abi abi,
			   const char *name, const char *rules);

/* Loads the registered profile @name in complain mode; 0 or -errno. */
int aa_policy_complain(struct aa_policy *pol, const char *name);

/*
 * Loads the registered profile @name attached to the executable @path,
 * so that a px rule for @path enters it; 0 or -errno.
 */
int aa_policy_attach(struct aa_policy *pol, const char *name,
		     const char *path);

/* How many profiles are registered. */
int aa_policy_count(const struct aa_policy *pol);

/*
 * Compiles and loads every registered profile of the ABIs set in @abis in
 * one apparmor_parser run.  Returns 0, or -errno with the reason (the
 * parser's message) in @err.
 */
int aa_policy_load(struct aa_policy *pol, const char *parser,
		   const bool abis[AA_ABI_COUNT], char *err, size_t errlen);

/*
 * Compiles @rules as the registered profile @name (its full name) of @abi
 * into the binary @file of the run directory, without loading it; a
 * @file compiled from the same source earlier in the run is kept.
 * Returns 0, or -errno with the reason in @err.
 */
int aa_policy_compile(struct aa_policy *pol, const char *parser,
		      enum aa_abi abi, const char *name, const char *rules,
		      const char *file, char *err, size_t errlen);

/*
 * Replaces the loaded profile with the binary @file that
 * aa_policy_compile() made: one write, no parser run.  0 or -errno.
 */
int aa_policy_replace(struct aa_policy *pol, const char *file);

/* Removes the loaded profile @name (a full name) now; 0 or -errno. */
int aa_policy_remove(struct aa_policy *pol, const char *name);

/* Removes what dead runs of @prefix left in /tmp and in the kernel. */
void aa_cleanup_stale(const char *prefix);

#endif /* _SELFTESTS_APPARMOR_POLICY_H */
