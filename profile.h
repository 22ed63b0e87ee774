/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The text of a generated profile: rules built with checked lengths, in
 * the syntax of either policy ABI.  Names and loading belong to policy.h.
 */

#ifndef _SELFTESTS_APPARMOR_PROFILE_H
#define _SELFTESTS_APPARMOR_PROFILE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "common.h"
#include "kselftest.h"

/* Room for a profile's rules, exec rules naming other profiles among them. */
#define RULES_MAX 2048

/* What a peer=() rule's profile allows besides the peer operations. */
#define PEER_LOCAL_RULES \
	"  unix (create, setopt, getopt, getattr, shutdown),\n"

/*
 * A profile: rule text, and a name when other rules refer to it (NULL:
 * the registry numbers it).  @overflow: the text did not fit, and the
 * profile must not be used.
 */
struct prof {
	const char *name;
	char text[RULES_MAX];
	size_t len;
	bool overflow;
};

/* Appends to @p's rules. */
__printf(2, 3) void prof_add(struct prof *p, const char *fmt, ...);

/*
 * Starts @p afresh with the rules every generated profile carries so that
 * the test itself can run in the run directory @dir, then @fmt.
 */
__printf(3, 4) void prof_rules(struct prof *p, const char *dir,
			       const char *fmt, ...);
void prof_vrules(struct prof *p, const char *dir, const char *fmt,
		 va_list ap);

/* Every unix permission, in the order the rules list them. */
extern const char *const prof_unix_perms[];
extern const size_t prof_unix_perms_count;

/*
 * The rules every profile starts with, @fperms on the run directory @dir
 * (where pathname sockets are).
 */
void prof_base(struct prof *p, const char *dir, const char *fperms);

/* A unix rule listing every permission but @drop (NULL: all), in @abi. */
void prof_unix_rules_but(struct prof *p, enum aa_abi abi, const char *drop);

/* Every unix permission but @drop (NULL: all) listed, in @abi's syntax. */
void prof_all_perms_but(struct prof *p, const char *dir, enum aa_abi abi,
			const char *drop);

/*
 * The same with only @fperms ("w", "rw") on the run directory's files:
 * where a pathname socket's end is asked by the file rule on its path.
 */
void prof_all_perms_but_files(struct prof *p, const char *dir,
			      const char *fperms, enum aa_abi abi,
			      const char *drop);
/*
 * Every unix permission but @perm (NULL: all), as @abi writes it: the
 * NEW ABI lists the others, the OLD one denies @perm from its coarse
 * rule.
 */
void prof_lacking(struct prof *p, const char *dir, enum aa_abi abi,
		  const char *perm);

/*
 * What an exec into @p's profile maps and reads: this program at @self
 * and at the links @links names, and the libraries, none of which is in
 * the run directory (so rules on the ends' paths decide their reads).
 */
void prof_exec_reads(struct prof *p, const char *self, const char *links);

/* The rule allowing every unix operation in @abi. */
const char *prof_allow_unix(enum aa_abi abi);

#endif /* _SELFTESTS_APPARMOR_PROFILE_H */
