// SPDX-License-Identifier: GPL-2.0
/*
 * A socketpair created under one AppArmor label and used under another.
 *
 * A unix socket keeps the label it was created under; a descriptor used
 * by a task whose label is not cached on it is revalidated on read() and
 * write() (aa_file_perm() -> aa_unix_file_perm()) and on receipt with
 * SCM_RIGHTS (the file_receive hook), while sendmsg() and recvmsg() only
 * meet the socket hooks.  Each run does one operation, so that no earlier
 * success has cached the new label on the socket.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef HAVE_LIBURING
#include <liburing.h>
#endif

#include "kselftest.h"

#include "common.h"
#include "unix_core.h"
#include "unix_handoff.h"
#include "unix_handoff_ops.h"

/* The creator's process and, for fork and SCM_RIGHTS, the user's. */
enum who {
	CREATOR,
	USER,
	WHO_COUNT,
};

const char *handoff_how_name(enum handoff_how how)
{
	static const char *const names[] = {
		[HANDOFF_CHANGE] = "change_profile",
		[HANDOFF_FORK] = "fork",
		[HANDOFF_PASS] = "SCM_RIGHTS",
		[HANDOFF_EXEC] = "exec",
		[HANDOFF_REPLACE] = "profile replacement",
	};

	return how < HANDOFF_COUNT ? names[how] : "?";
}

const char *handoff_shape_name(enum handoff_shape shape)
{
	static const char *const names[] = {
		[HSHAPE_PAIR] = "socketpair",
		[HSHAPE_BOUND] = "both ends on paths",
		[HSHAPE_TO_BOUND] = "peer on a path",
		[HSHAPE_FROM_BOUND] = "on a path, peer abstract",
		[HSHAPE_ABSTRACT] = "both ends abstract",
		[HSHAPE_LISTENER] = "listener on a path",
		[HSHAPE_ABSTRACT_LISTENER] = "abstract listener",
	};

	return shape < HSHAPE_COUNT ? names[shape] : "?";
}

const char *handoff_peer_name(enum handoff_peer peer)
{
	static const char *const names[] = {
		[HPEER_NONE] = "nothing",
		[HPEER_USE] = "uses end 1",
		[HPEER_CHANGE] = "changes profile",
		[HPEER_REPLACE] = "has its profile replaced",
		[HPEER_READ] = "reads end 1",
		[HPEER_SHUTDOWN] = "shuts end 1 down",
		[HPEER_CLOSE] = "closes end 1",
	};

	return peer < HPEER_COUNT ? names[peer] : "?";
}

const char *handoff_op_name(enum handoff_op op)
{
	static const char *const names[] = {
		[HOP_WRITE] = "write",
		[HOP_READ] = "read",
		[HOP_SENDMSG] = "sendmsg",
		[HOP_RECVMSG] = "recvmsg",
		[HOP_URING_SEND] = "io_uring SEND",
		[HOP_URING_RECV] = "io_uring RECV",
		[HOP_ACCEPT] = "accept",
		[HOP_CONNECT] = "connect",
		[HOP_FLOCK_SH] = "flock(LOCK_SH)",
		[HOP_FLOCK_EX] = "flock(LOCK_EX)",
		[HOP_WRITEV] = "writev",
		[HOP_READV] = "readv",
		[HOP_SPLICE_TO] = "splice from a pipe",
		[HOP_SPLICE_FROM] = "splice to a pipe",
		[HOP_URING_WRITE] = "io_uring WRITE",
		[HOP_URING_READ] = "io_uring READ",
	};

	return op < HOP_COUNT ? names[op] : "?";
}

/* Asks the caller to replace our profile, and waits until it has. */
static int await_replace(struct run *r)
{
	int chan = r->rep;
	char c = 0;

	r->out->step = STEP_HANDOFF;
	if (wrong(r->out, STEP_HANDOFF, write(chan, "r", 1) == 1, FAULT_TEST) ||
	    !readable(r->out, STEP_HANDOFF, chan, -1))
		return -1;
	return wrong(r->out, STEP_HANDOFF,
		     (r->h->refresh ? read(chan, &c, 1) : recv(chan, &c, 1, 0))
		     == 1 && c == 'g', FAULT_PEER_STOPPED) ? -1 : 0;
}

/* The caller's side of await_replace(): 0, or why it could not. */
static int replace_for(const struct handoff *h, int chan)
{
	struct pollfd pfd = { .fd = chan, .events = POLLIN };
	char c = 0;
	int ret;

	/* The creator stopped before its first op: nothing to replace. */
	if (poll(&pfd, 1, EXIT_TIMEOUT_MS) != 1 || read(chan, &c, 1) != 1 ||
	    c != 'r')
		return 0;
	ret = h->replace(h->arg);
	if (!ret && write(chan, "g", 1) != 1)
		ret = -errno;
	return ret;
}

/*
 * A connected pair whose end 1 is bound to a path, and end 0 too for
 * HSHAPE_BOUND.  Otherwise a dgram end 0 autobinds (an abstract name), so
 * that end 1 can connect back to it; a stream end 0 stays unnamed.
 * HSHAPE_FROM_BOUND: end 0 on path[0], end 1 on the abstract name path[1];
 * HSHAPE_ABSTRACT: both names abstract.
 */
static int bound_pair(struct run *r, int sv[2])
{
	const struct handoff *h = r->h;
	bool conn = h->type != SOCK_DGRAM;
	bool abs = h->shape == HSHAPE_ABSTRACT;
	bool from = h->shape == HSHAPE_FROM_BOUND || abs;
	struct sockaddr_un a0, a1;
	socklen_t l0, l1;
	int lfd;

	l0 = unix_addr(&a0, h->shape == HSHAPE_BOUND || from ? h->path[0] :
			    NULL, abs);
	l1 = unix_addr(&a1, h->path[1], from);
	sv[0] = socket(AF_UNIX, h->type, 0);
	lfd = socket(AF_UNIX, h->type, 0);
	if (failed(r->out, STEP_CREATE, sv[0]) || failed(r->out, STEP_CREATE, lfd))
		return -1;
	if ((h->shape == HSHAPE_BOUND || from || !conn) &&
	    failed(r->out, STEP_CREATE, bind(sv[0], (struct sockaddr *)&a0, l0)))
		return -1;
	if (failed(r->out, STEP_CREATE, bind(lfd, (struct sockaddr *)&a1, l1)))
		return -1;
	if (!conn) {
		sv[1] = lfd;
		l0 = sizeof(a0);
		return failed(r->out, STEP_CREATE,
			      connect(sv[0], (struct sockaddr *)&a1, l1)) ||
		       failed(r->out, STEP_CREATE,
			      getsockname(sv[0], (struct sockaddr *)&a0, &l0)) ||
		       failed(r->out, STEP_CREATE,
			      connect(sv[1], (struct sockaddr *)&a0, l0)) ? -1 : 0;
	}
	if (failed(r->out, STEP_CREATE, listen(lfd, 1)) ||
	    failed(r->out, STEP_CREATE, connect(sv[0], (struct sockaddr *)&a1, l1)))
		return -1;
	sv[1] = accept(lfd, NULL, NULL);
	close(lfd);
	return failed(r->out, STEP_CREATE, sv[1]) ? -1 : 0;
}

/* End 0 listening on a path or an abstract name, end 1 connected to it. */
static int listener_pair(struct run *r, int sv[2])
{
	const struct handoff *h = r->h;
	struct sockaddr_un addr;
	socklen_t len = unix_addr(&addr, h->path[0],
				  h->shape == HSHAPE_ABSTRACT_LISTENER);

	sv[0] = socket(AF_UNIX, h->type, 0);
	sv[1] = socket(AF_UNIX, h->type, 0);
	if (failed(r->out, STEP_CREATE, sv[0]) || failed(r->out, STEP_CREATE, sv[1]))
		return -1;
	return failed(r->out, STEP_CREATE, bind(sv[0], (struct sockaddr *)&addr, len)) ||
	       failed(r->out, STEP_CREATE, listen(sv[0], 1)) ||
	       failed(r->out, STEP_CREATE,
		      connect(sv[1], (struct sockaddr *)&addr, len)) ? -1 : 0;
}

/* HOP_CONNECT: end 1 listening on an abstract name, end 0 not connected. */
static int connect_pair(struct run *r, int sv[2])
{
	struct sockaddr_un addr;
	socklen_t len = unix_addr(&addr, r->h->path[1], true);

	sv[0] = socket(AF_UNIX, r->h->type, 0);
	sv[1] = socket(AF_UNIX, r->h->type, 0);
	return failed(r->out, STEP_CREATE, sv[0]) ||
	       failed(r->out, STEP_CREATE, sv[1]) ||
	       failed(r->out, STEP_CREATE,
		      bind(sv[1], (struct sockaddr *)&addr, len)) ||
	       failed(r->out, STEP_CREATE, listen(sv[1], 1)) ? -1 : 0;
}

static int make_pair(struct run *r, int sv[2])
{
	r->out->step = STEP_CREATE;
	if (r->h->op == HOP_CONNECT)
		return connect_pair(r, sv);
	if (handoff_shape_listens(r->h->shape))
		return listener_pair(r, sv);
	if (r->h->shape != HSHAPE_PAIR)
		return bound_pair(r, sv);
	return failed(r->out, STEP_CREATE, socketpair(AF_UNIX, r->h->type, 0, sv)) ?
	       -1 : 0;
}

/*
 * Puts @user on the calling task, now or, for @exec, at its next
 * execve(): alone, or stacked on the task's label, which then is @label.
 */
static int put_on(const struct handoff *h, struct outcome *out,
		  const char *user, const char *label, bool exec)
{
	char amp[LABEL_MAX];
	const char *to = h->onto == ONTO_NAMED ? label : amp;
	int ret = 0;

	if (h->onto == ONTO_PROFILE && !exec)
		return confine(out, STEP_CONFINE_USER, user, false, h->complain);
	at(out, STEP_CONFINE_USER);
	snprintf(amp, sizeof(amp), "&%s", user);
	if (h->onto == ONTO_STACK)
		ret = exec ? aa_stack_exec(user) : aa_stack(user);
	else if (h->onto == ONTO_PROFILE)
		ret = aa_confine_onexec(user);
	else if (!handoff_onto_by_rule(h->onto))
		ret = exec ? aa_confine_onexec(to) : aa_confine(to);
	if (ret) {
		out->err = -ret;
		return -1;
	}
	/* The exec'd image checks its label itself. */
	return !exec && wrong(out, STEP_CONFINE_USER,
			      !aa_check_label(label, false), FAULT_LABEL) ?
	       -1 : 0;
}

/* The user's label, from the creator's (or handoff.mid's). */
static int become_user(const struct handoff *h, struct outcome *out,
		       bool exec)
{
	return put_on(h, out, h->user, h->label, exec);
}

/*
 * The file ops of @w (handoff.warm), once each on end 0 under the task's
 * label, the other end moving the message: the socket then caches it.
 */
static int warm_ops(struct run *r, enum step at, int sv[2], unsigned int w)
{
	enum handoff_op op;
	int ret = 0;

	for (op = HOP_WRITE; op < HOP_COUNT && !ret; op++) {
		if (!(w & HANDOFF_WARM(op)) || !handoff_op_file(op))
			continue;
		if (handoff_op_locks(op)) {
			ret = end_lock(r, at, sv[0], op);
			continue;
		}
		if (end_ring_open(r, at, op))
			return -1;
		if (handoff_op_reads(op))
			ret = end_send(r, at, sv[1], HOP_SENDMSG) ||
			      end_recv(r, at, sv[0], op) ? -1 : 0;
		else
			ret = end_send(r, at, sv[0], op) ||
			      end_recv(r, at, sv[1], HOP_RECVMSG) ? -1 : 0;
		end_ring_close(r, op);
	}
	return ret;
}

/* handoff.mid, then its ops on end 0: the socket caches the stack. */
static int stack_mid(struct run *r, int sv[2])
{
	if (!r->h->mid)
		return 0;
	return put_on(r->h, r->out, r->h->mid, r->h->mid_label, false) ||
	       warm_ops(r, STEP_HANDOFF, sv, r->h->mid_warm) ? -1 : 0;
}

/*
 * The user's side of the peer's turn (run.turn, pipes, which AppArmor
 * does not mediate): it says it is there and waits for the go, which
 * never comes if the peer's event failed.
 */
static bool peer_turn_wait(struct run *r)
{
	char c = 0;

	if (r->h->peer == HPEER_NONE)
		return true;
	return write(r->turn[1], "u", 1) == 1 &&
	       read(r->turn[0], &c, 1) == 1 && c == 'g';
}

/* The user's process of HANDOFF_PASS: it receives end 0 and uses it. */
static void pass_user(struct run *r, int chan)
{
	int fd;

	/* A stack goes onto the creator's label, as for the other ways. */
	if ((r->h->onto != ONTO_PROFILE &&
	     confine(r->out, STEP_CONFINE_USER, r->h->creator, false, false)) ||
	    (r->h->mid &&
	     put_on(r->h, r->out, r->h->mid, r->h->mid_label, false)) ||
	    (!r->h->peer_after && !peer_turn_wait(r)) ||
	    become_user(r->h, r->out, false) ||
	    (r->h->peer_after && !peer_turn_wait(r)))
		return;
	fd = recv_fd(r->out, chan);
	if (fd < 0)
		return;
	if (!end_use(r, fd))
		r->out->step = STEP_DONE;
}

#define EXEC_ARG "--handoff-exec"

/*
 * HANDOFF_EXEC: a child execs this program into the user's profile
 * (change_onexec), holding end 0; the exec'd image uses it and writes
 * its outcome to a pipe, since the shared memory does not survive exec.
 */
static int exec_user(struct run *r, struct run *user, int sv[2])
{
	const char *self = aa_self_exe();
	char args[4][16];
	int res[2];
	pid_t pid;

	if (failed(r->out, STEP_HANDOFF, pipe2(res, O_CLOEXEC)))
		return -1;
	r->out->step = STEP_HANDOFF;
	pid = fork();
	if (failed(r->out, STEP_HANDOFF, pid))
		return -1;
	if (!pid) {
		if (stack_mid(user, sv))
			_exit(0);
		close(sv[1]);
		close(res[0]);
		snprintf(args[0], sizeof(args[0]), "%d", r->h->op);
		snprintf(args[1], sizeof(args[1]), "%d", r->h->type);
		snprintf(args[2], sizeof(args[2]), "%d", sv[0]);
		snprintf(args[3], sizeof(args[3]), "%d", res[1]);
		if (become_user(r->h, user->out, true) ||
		    failed(user->out, STEP_EXEC, fcntl(res[1], F_SETFD, 0)))
			_exit(0);
		at(user->out, STEP_EXEC);
		execl(r->h->exec_path ?: self, self, EXEC_ARG, args[0], args[1],
		      args[2], args[3], r->h->label ?: r->h->user, (char *)NULL);
		failed(user->out, STEP_EXEC, -1);
		_exit(0);
	}
	close(sv[0]);
	close(res[1]);
	/*
	 * Nothing comes back from an image that never ran.  A pipe takes a
	 * report this small whole: one read has all of it, or none if the
	 * image died first, and then the state before its exec stands.
	 */
	if (child_answers(user->out, res[0], pid)) {
		if (read(res[0], user->out, sizeof(*user->out)) < 0)
			failed(user->out, STEP_EXEC, -1);
		reap(user->out, pid);
	}
	close(res[0]);
	return user->out->step == STEP_DONE && !user->out->fault ? 0 : -1;
}

int handoff_exec_main(int argc, char **argv)
{
	struct outcome out = { .step = STEP_EXEC };
	struct handoff h = { .how = HANDOFF_EXEC };
	struct run r = { .h = &h, .out = &out };
	struct stat st;
	int fd, res;

	if (argc != 7 || strcmp(argv[1], EXEC_ARG))
		return -1;
	h.op = atoi(argv[2]);
	h.type = atoi(argv[3]);
	fd = atoi(argv[4]);
	res = atoi(argv[5]);
	h.user = argv[6];
	/* Revoked at exec: a descriptor the label may not have (in either mode). */
	if (!wrong(&out, STEP_CONFINE_USER, !aa_check_label(h.user, false) ||
		   !aa_check_label(h.user, true), FAULT_LABEL) &&
	    !wrong(&out, STEP_EXEC, !fstat(fd, &st) && S_ISSOCK(st.st_mode),
		   FAULT_NOT_INSTALLED) &&
	    !end_use(&r, fd))
		out.step = STEP_DONE;
	return write(res, &out, sizeof(out)) == sizeof(out) ? 0 : 1;
}

/*
 * HPEER_READ: the file op and the socket op on end 1, neither waiting,
 * where nothing is queued (what the user reads is queued on end 0).
 */
static int peer_read(struct run *r, int fd)
{
	char buf[MSG_LEN];
	int fl = fcntl(fd, F_GETFL);
	ssize_t n;

	if (failed(r->out, STEP_HANDOFF, fl) ||
	    failed(r->out, STEP_HANDOFF, fcntl(fd, F_SETFL, fl | O_NONBLOCK)))
		return -1;
	n = read(fd, buf, sizeof(buf));
	if (n < 0 && errno == EAGAIN)
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (n < 0 && errno == EAGAIN)
		return failed(r->out, STEP_HANDOFF, fcntl(fd, F_SETFL, fl)) ?
		       -1 : 0;
	/* Refused, or something was there after all. */
	if (!failed(r->out, STEP_HANDOFF, n))
		wrong(r->out, STEP_HANDOFF, false, FAULT_TEST);
	return -1;
}

/* The creator's event on the peer's end, end 1 (handoff.peer). */
static int peer_event(struct run *r, int sv[2])
{
	const struct handoff *h = r->h;
	enum handoff_op op;

	switch (h->peer) {
	case HPEER_USE:
		if ((h->peer_warm & HANDOFF_WARM(HOP_WRITE)) &&
		    end_send(r, STEP_HANDOFF, sv[1], HOP_WRITE))
			return -1;
		for (op = HOP_FLOCK_SH; op <= HOP_FLOCK_EX; op++)
			if ((h->peer_warm & HANDOFF_WARM(op)) &&
			    end_lock(r, STEP_HANDOFF, sv[1], op))
				return -1;
		return 0;
	case HPEER_CHANGE:
		return confine(r->out, STEP_HANDOFF, h->peer_label, false,
			       false);
	case HPEER_REPLACE:
		return await_replace(r);
	case HPEER_READ:
		return peer_read(r, sv[1]);
	case HPEER_SHUTDOWN:
		return failed(r->out, STEP_HANDOFF,
			      shutdown(sv[1], h->peer_shut)) ? -1 : 0;
	case HPEER_CLOSE:
		close(sv[1]);
		sv[1] = -1;
		return 0;
	default:
		return 0;
	}
}

/* The creator's: the peer's event once the user is there, if it ever is. */
static void peer_turn(struct run *r, int sv[2])
{
	char c = 0;

	if (read(r->turn[0], &c, 1) == 1 && !peer_event(r, sv) &&
	    write(r->turn[1], "g", 1) != 1)
		failed(r->out, STEP_HANDOFF, -1);
}

/*
 * HANDOFF_FORK: the child puts the user's label on and uses end 0.  The
 * creator's peer event comes after the fork in either order: before the
 * child's label change, or for peer_after between it and the child's op;
 * pipes order them, which AppArmor does not mediate.
 */
static int fork_user(struct run *r, struct run *user, int sv[2])
{
	bool peer = r->h->peer != HPEER_NONE, after = r->h->peer_after;
	int go[2] = { -1, -1 }, done[2] = { -1, -1 };
	bool ok;
	pid_t pid;

	if (peer && (failed(r->out, STEP_HANDOFF, pipe2(go, O_CLOEXEC)) ||
		     failed(r->out, STEP_HANDOFF, pipe2(done, O_CLOEXEC))))
		return -1;
	r->out->step = STEP_HANDOFF;
	pid = fork();
	if (failed(r->out, STEP_HANDOFF, pid))
		return -1;
	if (!pid) {
		ok = !stack_mid(user, sv);
		close(sv[1]);
		ok = ok && !(after && become_user(r->h, user->out, false));
		if (peer) {
			close(go[1]);
			close(done[0]);
			user->turn[0] = go[0];
			user->turn[1] = done[1];
			ok = ok && peer_turn_wait(user);
		}
		ok = ok && !(!after && become_user(r->h, user->out, false));
		if (ok && !end_use(user, sv[0]))
			user->out->step = STEP_DONE;
		_exit(0);
	}
	close(sv[0]);
	if (peer) {
		close(done[1]);
		close(go[0]);
		r->turn[0] = done[0];
		r->turn[1] = go[1];
		/* The child stopped on its way: no event. */
		if (!child_answers(user->out, done[0], pid))
			pid = -1;
		else
			peer_turn(r, sv);
		close(go[1]);
		close(done[0]);
	}
	if (pid > 0)
		reap(user->out, pid);
	if (r->out->err || r->out->fault)
		return -1;
	return user->out->step == STEP_DONE && !user->out->fault ? 0 : -1;
}

/* Where the user's end goes after seeding; the creator keeps end 1. */
static int hand_off(struct run *r, struct run *user, int sv[2])
{
	switch (r->h->how) {
	case HANDOFF_CHANGE:
		if (become_user(r->h, user->out, false) || end_use(user, sv[0]))
			return -1;
		user->out->step = STEP_DONE;
		return 0;
	case HANDOFF_FORK:
		return fork_user(r, user, sv);
	case HANDOFF_EXEC:
		return exec_user(r, user, sv);
	case HANDOFF_REPLACE:
		/* The pair is in use before the profile is replaced. */
		if (r->h->op != HOP_CONNECT &&
		    (end_use_at(r, STEP_BEFORE, sv[0]) ||
		     end_check_at(r, STEP_BEFORE, sv[1])))
			return -1;
		if (await_replace(r) || end_use(user, sv[0]))
			return -1;
		user->out->step = STEP_DONE;
		return 0;
	default:
		if (send_fd(r->out, r->chan, sv[0]))
			return -1;
		close(sv[0]);
		/* The user stopped on its way if its pipe closed: no event. */
		if (r->h->peer != HPEER_NONE) {
			if (!readable(r->out, STEP_HANDOFF, r->turn[0], -1))
				return -1;
			peer_turn(r, sv);
		}
		return r->out->err || r->out->fault ? -1 : 0;
	}
}

/*
 * The creator: confined, it makes the pair, queues a message for a read
 * op, hands end 0 over and checks on end 1 what the user wrote.
 */
static void creator(struct run *r, struct run *user)
{
	enum handoff_op seed = r->h->creator_file_ops ? HOP_WRITE : HOP_SENDMSG;
	int sv[2];

	if (confine(r->out, STEP_CONFINE, r->h->creator, false, false))
		return;
	if (make_pair(r, sv))
		return;
	/* Read ops read twice (retry()). */
	if (handoff_op_reads(r->h->op) &&
	    (end_send(r, STEP_SEED, sv[1], seed) ||
	     end_send(r, STEP_SEED, sv[1], seed)))
		return;
	if (r->h->how != HANDOFF_REPLACE &&
	    warm_ops(r, STEP_BEFORE, sv, r->h->warm))
		return;
	/* Fork and exec: the child holds both ends until it has its label. */
	if ((r->h->how == HANDOFF_CHANGE || r->h->how == HANDOFF_PASS) &&
	    stack_mid(r, sv))
		return;
	if (hand_off(r, user, sv))
		return;
	/* SCM_RIGHTS: the user says when it has used its end, or stops. */
	if (r->h->how == HANDOFF_PASS &&
	    !readable(r->out, STEP_CHECK, r->chan, -1))
		return;
	if (r->h->how == HANDOFF_PASS && user->out->step != STEP_DONE)
		return;
	r->out->step = STEP_CHECK;
	if (!end_check(r, sv[1]))
		r->out->step = STEP_DONE;
}

static bool stopped(const struct outcome *o)
{
	return o->err || o->fault;
}

/*
 * The creator stops on its own only before the hand-off or at the check,
 * and quietly when the user stopped: the first failure is the result,
 * and a success the user's (whose pid the records of its op name).
 */
static struct outcome merge(const struct outcome o[WHO_COUNT])
{
	struct outcome m = o[CREATOR];

	if (stopped(&o[CREATOR]))
		return o[CREATOR];
	if (stopped(&o[USER]) || o[USER].step != STEP_DONE)
		return o[USER];
	m.pid = o[USER].pid;
	return m;
}

/*
 * The descriptors another process holds, closed so that it is seen to
 * stop; and SIGPIPE ignored, since a peer that shut or closed its end
 * makes a write fail with EPIPE, an outcome like any other.
 */
static void own_fds(struct run *r)
{
	unsigned int i;

	signal(SIGPIPE, SIG_IGN);
	for (i = 0; i < ARRAY_SIZE(r->others); i++)
		if (r->others[i] >= 0)
			close(r->others[i]);
}

static void creator_main(void *arg)
{
	struct run *r = arg;

	own_fds(r);
	creator(r, r->user);
}

static void user_main(void *arg)
{
	struct run *r = arg;

	struct pollfd pfd = { .fd = r->chan, .events = POLLIN };

	own_fds(r);
	pass_user(r, r->chan);
	/* Tells the creator the end has been used, or not. */
	if (write(r->chan, "u", 1) != 1)
		_exit(1);
	/*
	 * End 0 is held until the creator has checked and gone: a
	 * seqpacket end closed with a message unread (the peer's write)
	 * resets end 1, which would race the check.
	 */
	poll(&pfd, 1, IO_TIMEOUT_MS);
}

int handoff_run(const struct handoff *h, struct outcome *out)
{
	static void (*const main_of[WHO_COUNT])(void *) = {
		[CREATOR] = creator_main,
		[USER] = user_main,
	};
	int chan[2] = { -1, -1 }, rep[2] = { -1, -1 };
	int go[2] = { -1, -1 }, done[2] = { -1, -1 };
	pid_t pid[WHO_COUNT] = { 0, 0 };
	struct run r[WHO_COUNT];
	struct outcome *sh;
	int ret = 0, i;
	enum who w;

	sh = shared_alloc(WHO_COUNT * sizeof(*sh));
	if (!sh)
		return -errno;
	/*
	 * The channels are created unconfined: passing on them is not
	 * checked, nor are the messages of a replacement.  Pipes order the
	 * peer's turn.
	 */
	if (h->how == HANDOFF_PASS &&
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, chan))
		ret = -errno;
	if (!ret &&
	    (h->how == HANDOFF_REPLACE || h->peer == HPEER_REPLACE) &&
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, rep))
		ret = -errno;
	if (!ret && h->how == HANDOFF_PASS && h->peer != HPEER_NONE &&
	    (pipe2(go, O_CLOEXEC) || pipe2(done, O_CLOEXEC)))
		ret = -errno;
	for (w = CREATOR; w < WHO_COUNT; w++) {
		sh[w] = (struct outcome){ .step = STEP_NOT_RUN };
		r[w] = (struct run){
			.h = h,
			.out = &sh[w],
			.user = &r[USER],
			.chan = chan[w],
			.rep = w ? -1 : rep[0],
			.turn = { w ? go[0] : done[0], w ? done[1] : go[1] },
			.others = { chan[!w], rep[1], w ? rep[0] : -1,
				    w ? done[0] : go[0], w ? go[1] : done[1] },
		};
	}
	for (w = CREATOR; w < WHO_COUNT && !ret; w++) {
		if (w == USER && h->how != HANDOFF_PASS)
			break;
		pid[w] = spawn(main_of[w], &r[w]);
		if (pid[w] < 0)
			ret = pid[w];
	}
	/* Ours closed first: a process that stops is seen to. */
	for (i = 0; i < 2; i++) {
		if (chan[i] >= 0)
			close(chan[i]);
		if (go[i] >= 0)
			close(go[i]);
		if (done[i] >= 0)
			close(done[i]);
	}
	if (rep[0] >= 0)
		close(rep[0]);
	if (rep[1] >= 0 && pid[CREATOR] > 0) {
		ret = replace_for(h, rep[1]);
		if (ret)
			kill(pid[CREATOR], SIGKILL);
	}
	if (rep[1] >= 0)
		close(rep[1]);
	for (w = CREATOR; w < WHO_COUNT; w++) {
		if (pid[w] > 0)
			reap(r[w].out, pid[w]);
		else if (pid[w] < 0 && w == USER && pid[CREATOR] > 0)
			kill(pid[CREATOR], SIGKILL);
	}
	*out = merge(sh);
	shared_free(sh, WHO_COUNT * sizeof(*sh));
	return ret;
}

int handoff_uring_probe(void)
{
#ifdef HAVE_LIBURING
	struct io_uring ring;
	int ret = io_uring_queue_init(2, &ring, 0);

	if (!ret)
		io_uring_queue_exit(&ring);
	return ret;
#else
	return -EOPNOTSUPP;
#endif
}
