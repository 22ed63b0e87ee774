/* SPDX-License-Identifier: GPL-2.0 */
/*
 * unix_handoff.c's own: one process's run of a handoff, and the
 * operations on an end it is made of (unix_handoff_ops.c).
 */

#ifndef _SELFTESTS_APPARMOR_UNIX_HANDOFF_OPS_H
#define _SELFTESTS_APPARMOR_UNIX_HANDOFF_OPS_H

#include <stdbool.h>
#include <sys/types.h>

#ifdef HAVE_LIBURING
#include <liburing.h>
#endif

#include "unix_core.h"
#include "unix_handoff.h"

struct run {
	const struct handoff *h;
	struct outcome *out;
	struct run *user;	/* the creator's: where the user records */
	int chan;		/* SCM_RIGHTS: to the other process, or -1 */
	int rep;		/* the creator's, to the caller who replaces */
	/* Pipes of the peer's turn: to read from, to write to; -1 if none */
	int turn[2];
	int others[5];		/* other processes' descriptors, or -1 */
#ifdef HAVE_LIBURING
	struct io_uring ring;
#endif
};

bool handoff_op_reads(enum handoff_op op);
bool handoff_op_locks(enum handoff_op op);
/* What aa_file_perm() revalidates: not the socket hooks' ops. */
bool handoff_op_file(enum handoff_op op);

/* The ring of an io_uring op, made by the label that uses it. */
int end_ring_open(struct run *r, enum step at, enum handoff_op op);
void end_ring_close(struct run *r, enum handoff_op op);

/* The lock of @op on @fd, and its release. */
int end_lock(struct run *r, enum step where, int fd, enum handoff_op op);
/* The run's message, by the system call of @via; every byte checked. */
int end_recv(struct run *r, enum step where, int fd, enum handoff_op via);
int end_send(struct run *r, enum step where, int fd, enum handoff_op via);

/* handoff.op on end @fd, recorded as step @at (end_use(): STEP_OP). */
int end_use_at(struct run *r, enum step at, int fd);
int end_use(struct run *r, int fd);
/*
 * At the other end, @fd: what the user's end wrote is received, or the
 * connection it made accepted.
 */
int end_check_at(struct run *r, enum step at, int fd);
int end_check(struct run *r, int fd);

#endif /* _SELFTESTS_APPARMOR_UNIX_HANDOFF_OPS_H */
