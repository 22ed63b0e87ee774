/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a unix socket carries: a descriptor of an ordinary file, opened
 * under one AppArmor label and used under another, as a broker hands a
 * file to a confined worker with SCM_RIGHTS, or a runtime keeps one open
 * across the exec into a container's profile.
 */

#ifndef _SELFTESTS_APPARMOR_UNIX_CARRIED_H
#define _SELFTESTS_APPARMOR_UNIX_CARRIED_H

#include <stdbool.h>
#include <sys/types.h>

#include "unix_core.h"

/* What the descriptor is of. */
enum carried_object {
	COBJ_FILE,	/* a regular file of one page */
	COBJ_DIR,	/* a directory, opened O_DIRECTORY */
	COBJ_FIFO,	/* a FIFO, opened without blocking */
	COBJ_COUNT,
};

/* How it reaches the task under U, from the one under A that opened it. */
enum carried_route {
	/* SCM_RIGHTS on a socketpair of each type, to a process under U. */
	CROUTE_STREAM,
	CROUTE_DGRAM,
	CROUTE_SEQPACKET,
	/* Kept open across an exec into U: A's exec rule "px -> U". */
	CROUTE_EXEC_RULE,
	/* The same, by change_onexec to U first. */
	CROUTE_ONEXEC,
	/* fork(), then the child changes profile to U. */
	CROUTE_FORK,
	/* The task stacks U onto A: the label is A//&U. */
	CROUTE_STACK,
	/* The control: a task under U opens it itself. */
	CROUTE_SELF,
	CROUTE_COUNT,
};

/* The one operation the task under U performs on the descriptor. */
enum carried_op {
	COP_READ,		/* read(); getdents64() of a directory */
	COP_WRITE,		/* write() */
	COP_APPEND,		/* write() to a descriptor opened O_APPEND */
	COP_FLOCK_SH,		/* flock(LOCK_SH) */
	COP_FLOCK_EX,		/* flock(LOCK_EX) */
	COP_SETLK_RD,		/* fcntl(F_SETLK) of a read lock */
	COP_SETLK_WR,		/* fcntl(F_SETLK) of a write lock */
	COP_MMAP_READ,		/* mmap(PROT_READ), shared */
	COP_MMAP_EXEC,		/* mmap(PROT_READ | PROT_EXEC), private */
	COP_MPROTECT_EXEC,	/* mprotect(PROT_EXEC) of a read-only mapping */
	COP_COUNT,
};

/* The regular file's size, and each mapping's. */
#define CARRIED_FILE_LEN 4096

struct carried {
	enum carried_object obj;
	enum carried_route route;
	enum carried_op op;
	const char *path;	/* the object */
	ino_t ino;		/* its inode: what an exec must still hold */
	/*
	 * A's first use of the descriptor before it moves: CARRIED_WARM()
	 * of each operation, in their order, each one carried_op_fits().
	 */
	unsigned int warm;
	const char *creator;	/* A, who opens it */
	const char *user;	/* U's profile */
	/* The task's label under U as the kernel prints it (A//&U). */
	const char *label;
	/* CROUTE_EXEC_RULE: the link to this program A's rule names. */
	const char *exec_path;
};

/*
 * Runs @c in child processes: @opener is where A stopped (STEP_DONE
 * when it handed the descriptor over), @out where U did.  0, or -errno
 * when the run could not be set up.
 */
int carried_run(const struct carried *c, struct outcome *opener,
		struct outcome *out);

#define CARRIED_WARM(op) (1U << (op))

/* How @op opens what it operates on, and whether it applies to @obj. */
int carried_open_flags(enum carried_object obj, enum carried_op op);
bool carried_op_applies(enum carried_object obj, enum carried_op op);
/* Whether @op can be done on a descriptor opened for @fd_op. */
bool carried_op_fits(enum carried_object obj, enum carried_op fd_op,
		     enum carried_op op);

const char *carried_object_name(enum carried_object obj);
const char *carried_route_name(enum carried_route route);
const char *carried_op_name(enum carried_op op);

/*
 * The exec'd image of the exec routes: a program that runs them calls it
 * first.  There it uses the inherited descriptor and returns the exit
 * status; elsewhere it returns -1.
 */
int carried_exec_main(int argc, char **argv);

#endif /* _SELFTESTS_APPARMOR_UNIX_CARRIED_H */
