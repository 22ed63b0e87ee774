// SPDX-License-Identifier: GPL-2.0
/*
 * A descriptor of an ordinary file, opened under one AppArmor label and
 * used under another.
 *
 * A file caches the label it was last allowed under and the permissions
 * allowed with it (struct aa_file_ctx).  A task whose label is not
 * cached there is revalidated: on receipt with SCM_RIGHTS (the
 * file_receive hook), at an exec for each descriptor it keeps
 * (aa_inherit_files()), and on each later operation through
 * aa_file_perm().  Each run does one operation under the new label, so
 * that nothing but the route and A's own use has touched the cache.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common.h"
#include "unix_carried.h"
#include "unix_core.h"

/* What A's process records, and what U's does. */
enum who {
	OPENER,
	USER,
	WHO_COUNT,
};

const char *carried_object_name(enum carried_object obj)
{
	static const char *const names[] = {
		[COBJ_FILE] = "regular file",
		[COBJ_DIR] = "directory",
		[COBJ_FIFO] = "FIFO",
	};

	return obj < COBJ_COUNT ? names[obj] : "?";
}

const char *carried_route_name(enum carried_route route)
{
	static const char *const names[] = {
		[CROUTE_STREAM] = "SCM_RIGHTS over stream",
		[CROUTE_DGRAM] = "SCM_RIGHTS over dgram",
		[CROUTE_SEQPACKET] = "SCM_RIGHTS over seqpacket",
		[CROUTE_EXEC_RULE] = "kept across an exec by A's px rule",
		[CROUTE_ONEXEC] = "kept across an exec by change_onexec",
		[CROUTE_FORK] = "fork(), the child changing profile",
		[CROUTE_STACK] = "the task stacking U onto A",
		[CROUTE_SELF] = "opened by U itself",
	};

	return route < CROUTE_COUNT ? names[route] : "?";
}

const char *carried_op_name(enum carried_op op)
{
	static const char *const names[] = {
		[COP_READ] = "read",
		[COP_WRITE] = "write",
		[COP_APPEND] = "append",
		[COP_FLOCK_SH] = "flock(LOCK_SH)",
		[COP_FLOCK_EX] = "flock(LOCK_EX)",
		[COP_SETLK_RD] = "fcntl(F_SETLK, F_RDLCK)",
		[COP_SETLK_WR] = "fcntl(F_SETLK, F_WRLCK)",
		[COP_MMAP_READ] = "mmap(PROT_READ)",
		[COP_MMAP_EXEC] = "mmap(PROT_EXEC)",
		[COP_MPROTECT_EXEC] = "mprotect(PROT_EXEC)",
	};

	return op < COP_COUNT ? names[op] : "?";
}

bool carried_op_applies(enum carried_object obj, enum carried_op op)
{
	switch (obj) {
	case COBJ_FILE:
		return true;
	case COBJ_DIR:
		/* A directory is opened for reading only, and not mapped. */
		return op == COP_READ || op == COP_FLOCK_SH ||
		       op == COP_FLOCK_EX || op == COP_SETLK_RD;
	default:
		/* A FIFO is not mapped, and has no end of file to append at. */
		return op <= COP_SETLK_WR && op != COP_APPEND;
	}
}

/* What @op needs of the descriptor's mode: FMODE_READ, FMODE_WRITE. */
static bool op_reads(enum carried_op op)
{
	return op == COP_READ || op == COP_SETLK_RD || op >= COP_MMAP_READ;
}

static bool op_writes(enum carried_op op)
{
	return op == COP_WRITE || op == COP_APPEND || op == COP_SETLK_WR;
}

/*
 * The least a descriptor must be opened with for @op: a write lock needs
 * a descriptor open for writing.  A FIFO opened for writing alone waits
 * for a reader; for both, it does not.
 */
int carried_open_flags(enum carried_object obj, enum carried_op op)
{
	bool writes = op_writes(op);
	int flags = O_CLOEXEC;

	if (obj == COBJ_DIR)
		return flags | O_RDONLY | O_DIRECTORY;
	if (obj == COBJ_FIFO)
		return flags | O_NONBLOCK | (writes ? O_RDWR : O_RDONLY);
	if (op == COP_APPEND)
		return flags | O_WRONLY | O_APPEND;
	return flags | (writes ? O_WRONLY : O_RDONLY);
}

bool carried_op_fits(enum carried_object obj, enum carried_op fd_op,
		     enum carried_op op)
{
	int mode = carried_open_flags(obj, fd_op) & O_ACCMODE;

	if (!carried_op_applies(obj, op))
		return false;
	if (op_reads(op) && mode == O_WRONLY)
		return false;
	return !op_writes(op) || mode != O_RDONLY;
}

static int set_lock(int fd, short type)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET };

	return fcntl(fd, F_SETLK, &fl);
}

static long do_read(enum carried_object obj, int fd)
{
	char buf[512];
	long n;

	if (obj == COBJ_DIR)
		return syscall(SYS_getdents64, fd, buf, sizeof(buf));
	n = read(fd, buf, 1);
	/* An empty FIFO with a writer: read() was allowed, nothing came. */
	return n < 0 && errno == EAGAIN && obj == COBJ_FIFO ? 0 : n;
}

/* @op on @fd, recorded at @where: 0, or -1 with the outcome recorded. */
static int do_op(struct outcome *out, enum step where,
		 enum carried_object obj, enum carried_op op, int fd)
{
	int lock_type = op == COP_SETLK_RD ? F_RDLCK : F_WRLCK;
	int prot = op == COP_MMAP_EXEC ? PROT_READ | PROT_EXEC : PROT_READ;
	int share = op == COP_MMAP_READ ? MAP_SHARED : MAP_PRIVATE;
	void *p;
	long ret;

	at(out, where);
	/* Whose audit records are the operation's. */
	out->pid = getpid();
	switch (op) {
	case COP_READ:
		ret = do_read(obj, fd);
		break;
	case COP_WRITE:
	case COP_APPEND:
		ret = write(fd, "x", 1);
		break;
	case COP_FLOCK_SH:
	case COP_FLOCK_EX:
		ret = flock(fd, (op == COP_FLOCK_SH ? LOCK_SH : LOCK_EX) |
			    LOCK_NB);
		break;
	case COP_SETLK_RD:
	case COP_SETLK_WR:
		ret = set_lock(fd, lock_type);
		break;
	default:
		p = mmap(NULL, CARRIED_FILE_LEN, prot, share, fd, 0);
		/* The mapping mprotect() is asked of is the test's own. */
		if (op == COP_MPROTECT_EXEC &&
		    wrong(out, where, p != MAP_FAILED, FAULT_TEST))
			return -1;
		if (p == MAP_FAILED)
			return failed(out, where, -1) ? -1 : 0;
		ret = op == COP_MPROTECT_EXEC ?
		      mprotect(p, CARRIED_FILE_LEN, PROT_READ | PROT_EXEC) : 0;
		munmap(p, CARRIED_FILE_LEN);
		break;
	}
	return failed(out, where, ret) ? -1 : 0;
}

/*
 * A's use before the descriptor moves on: each operation of @c->warm,
 * its lock undone, so that no lock of A's stands in U's way but its
 * permission's cache.
 */
static int warm(struct outcome *out, const struct carried *c, int fd)
{
	enum carried_op op;
	int ret = 0;

	for (op = 0; op < COP_COUNT && !ret; op++) {
		if (!(c->warm & CARRIED_WARM(op)))
			continue;
		if (do_op(out, STEP_BEFORE, c->obj, op, fd))
			return -1;
		if (op == COP_FLOCK_SH || op == COP_FLOCK_EX)
			ret = flock(fd, LOCK_UN);
		else if (op == COP_SETLK_RD || op == COP_SETLK_WR)
			ret = set_lock(fd, F_UNLCK);
	}
	return failed(out, STEP_BEFORE, ret) ? -1 : 0;
}

/* A opens the object and, if asked, uses it: the descriptor, or -1. */
static int opener_open(struct outcome *out, const struct carried *c)
{
	int fd;

	if (confine(out, STEP_CONFINE, c->creator, false, false))
		return -1;
	at(out, STEP_CREATE);
	fd = open(c->path, carried_open_flags(c->obj, c->op));
	if (failed(out, STEP_CREATE, fd))
		return -1;
	if (c->warm && warm(out, c, fd)) {
		close(fd);
		return -1;
	}
	at(out, STEP_HANDOFF);
	return fd;
}

/* U's label, put onto the task that has the descriptor. */
static int become_user(struct outcome *out, const struct carried *c)
{
	int ret;

	if (c->route != CROUTE_STACK)
		return confine(out, STEP_CONFINE_USER, c->user, false, false);
	at(out, STEP_CONFINE_USER);
	ret = aa_stack(c->user);
	if (ret) {
		out->err = -ret;
		return -1;
	}
	return wrong(out, STEP_CONFINE_USER, !aa_check_label(c->label, false),
		     FAULT_LABEL) ? -1 : 0;
}

/* The control: U opens the object itself. */
static void self_main(const struct carried *c, struct outcome *sh)
{
	int fd;

	sh[OPENER].step = STEP_DONE;
	if (confine(&sh[USER], STEP_CONFINE_USER, c->user, false, false))
		return;
	at(&sh[USER], STEP_OPEN);
	fd = open(c->path, carried_open_flags(c->obj, c->op));
	if (!failed(&sh[USER], STEP_OPEN, fd) &&
	    !do_op(&sh[USER], STEP_OP, c->obj, c->op, fd))
		sh[USER].step = STEP_DONE;
}

/* SCM_RIGHTS, A's side: it sends the descriptor and is done. */
static void pass_main(const struct carried *c, struct outcome *sh, int chan)
{
	int fd = opener_open(&sh[OPENER], c);

	if (fd < 0 || send_fd(&sh[OPENER], chan, fd))
		return;
	sh[OPENER].step = STEP_DONE;
}

/* SCM_RIGHTS, U's side: a process of its own, confined before receipt. */
static void receive_main(const struct carried *c, struct outcome *sh,
			 int chan)
{
	int fd;

	if (become_user(&sh[USER], c))
		return;
	fd = recv_fd(&sh[USER], chan);
	if (fd >= 0 && !do_op(&sh[USER], STEP_OP, c->obj, c->op, fd))
		sh[USER].step = STEP_DONE;
}

/* fork() and change_profile, or a stack put on by the task itself. */
static void change_main(const struct carried *c, struct outcome *sh)
{
	int fd = opener_open(&sh[OPENER], c);
	pid_t pid = 0;

	if (fd < 0)
		return;
	sh[OPENER].step = STEP_DONE;
	if (c->route == CROUTE_FORK) {
		pid = fork();
		if (failed(&sh[OPENER], STEP_HANDOFF, pid))
			return;
	}
	if (!pid) {
		if (!become_user(&sh[USER], c) &&
		    !do_op(&sh[USER], STEP_OP, c->obj, c->op, fd))
			sh[USER].step = STEP_DONE;
		if (c->route == CROUTE_FORK)
			_exit(0);
		return;
	}
	reap(&sh[USER], pid);
}

#define EXEC_ARG "--carried-exec"

/*
 * The exec routes, A's side: the descriptor stays open across the exec
 * into U; the exec'd image reports on the pipe @res, since the shared
 * memory does not survive the exec.
 */
static void exec_main(const struct carried *c, struct outcome *sh,
		      const char *self, int res)
{
	char args[5][24];
	int fd = opener_open(&sh[OPENER], c), ret;

	if (fd < 0)
		return;
	if (c->route == CROUTE_ONEXEC) {
		ret = aa_confine_onexec(c->user);
		if (ret) {
			sh[OPENER].err = -ret;
			return;
		}
	}
	if (failed(&sh[OPENER], STEP_HANDOFF, fcntl(fd, F_SETFD, 0)) ||
	    failed(&sh[OPENER], STEP_HANDOFF, fcntl(res, F_SETFD, 0)))
		return;
	snprintf(args[0], sizeof(args[0]), "%d", c->obj);
	snprintf(args[1], sizeof(args[1]), "%d", c->op);
	snprintf(args[2], sizeof(args[2]), "%d", fd);
	snprintf(args[3], sizeof(args[3]), "%d", res);
	snprintf(args[4], sizeof(args[4]), "%llu",
		 (unsigned long long)c->ino);
	/* What is written before the exec stays in the shared page. */
	sh[OPENER].step = STEP_DONE;
	execl(c->route == CROUTE_EXEC_RULE ? c->exec_path : self, self,
	      EXEC_ARG, args[0], args[1], args[2], args[3], args[4], c->user,
	      (char *)NULL);
	failed(&sh[OPENER], STEP_HANDOFF, -1);
}

int carried_exec_main(int argc, char **argv)
{
	struct outcome out = { .step = STEP_EXEC };
	enum carried_object obj;
	enum carried_op op;
	struct stat st;
	int fd, res;

	if (argc != 8 || strcmp(argv[1], EXEC_ARG))
		return -1;
	obj = atoi(argv[2]);
	op = atoi(argv[3]);
	fd = atoi(argv[4]);
	res = atoi(argv[5]);
	/* A descriptor the new label may not have is revoked at exec. */
	if (!wrong(&out, STEP_CONFINE_USER, !aa_check_label(argv[7], false),
		   FAULT_LABEL) &&
	    !wrong(&out, STEP_EXEC, !fstat(fd, &st) &&
		   st.st_ino == strtoull(argv[6], NULL, 10),
		   FAULT_NOT_INSTALLED) &&
	    !do_op(&out, STEP_OP, obj, op, fd))
		out.step = STEP_DONE;
	return write(res, &out, sizeof(out)) == sizeof(out) ? 0 : 1;
}

struct job {
	const struct carried *c;
	struct outcome *sh;
	int chan[2];		/* SCM_RIGHTS: A sends on 0, U receives on 1 */
	int res[2];		/* the exec routes: the image's report */
	const char *self;
};

static void opener_job(void *arg)
{
	struct job *j = arg;

	switch (j->c->route) {
	case CROUTE_SELF:
		self_main(j->c, j->sh);
		break;
	case CROUTE_EXEC_RULE:
	case CROUTE_ONEXEC:
		close(j->res[0]);
		exec_main(j->c, j->sh, j->self, j->res[1]);
		break;
	case CROUTE_FORK:
	case CROUTE_STACK:
		change_main(j->c, j->sh);
		break;
	default:
		close(j->chan[1]);
		pass_main(j->c, j->sh, j->chan[0]);
		break;
	}
}

static void user_job(void *arg)
{
	struct job *j = arg;

	close(j->chan[0]);
	receive_main(j->c, j->sh, j->chan[1]);
}

static const int route_types[] = {
	[CROUTE_STREAM] = SOCK_STREAM,
	[CROUTE_DGRAM] = SOCK_DGRAM,
	[CROUTE_SEQPACKET] = SOCK_SEQPACKET,
};

/*
 * The exec'd image's report on @j->res: end of file, within the I/O
 * timeout, when A's process stopped before its exec or the image did
 * before its report.
 */
static void exec_report(struct job *j, struct outcome *u)
{
	close(j->res[1]);
	j->res[1] = -1;
	*u = (struct outcome){ .step = STEP_EXEC };
	if (readable(u, STEP_EXEC, j->res[0], -1) &&
	    read(j->res[0], u, sizeof(*u)) != sizeof(*u))
		*u = (struct outcome){ .step = STEP_EXEC,
				       .fault = FAULT_PEER_STOPPED };
}

int carried_run(const struct carried *c, struct outcome *opener,
		struct outcome *out)
{
	struct job j = { .c = c, .chan = { -1, -1 }, .res = { -1, -1 },
			 .self = aa_self_exe() };
	struct outcome image;
	bool scm = c->route <= CROUTE_SEQPACKET;
	bool exec = c->route == CROUTE_EXEC_RULE || c->route == CROUTE_ONEXEC;
	pid_t pid;
	int ret = 0, i;

	j.sh = shared_alloc(WHO_COUNT * sizeof(*j.sh));
	if (!j.sh)
		return -errno;
	for (i = 0; i < WHO_COUNT; i++)
		j.sh[i] = (struct outcome){ .step = STEP_NOT_RUN };
	if ((exec && pipe2(j.res, O_CLOEXEC)) ||
	    /* Made unconfined: the channel's own messages are not mediated. */
	    (scm && socketpair(AF_UNIX, route_types[c->route] | SOCK_CLOEXEC,
			       0, j.chan))) {
		ret = -errno;
		goto out;
	}
	pid = spawn(opener_job, &j);
	if (pid < 0) {
		ret = pid;
		goto out;
	}
	if (exec)
		exec_report(&j, &image);
	reap(&j.sh[OPENER], pid);
	/* The image's report, if A's process got as far as the exec. */
	if (exec && j.sh[OPENER].step == STEP_DONE && !j.sh[OPENER].fault)
		j.sh[USER] = image;
	/* U's process starts once A's has sent, or not at all. */
	if (scm && j.sh[OPENER].step == STEP_DONE && !j.sh[OPENER].fault) {
		close(j.chan[0]);
		j.chan[0] = -1;
		pid = spawn(user_job, &j);
		if (pid < 0)
			ret = pid;
		else
			reap(&j.sh[USER], pid);
	}
	*opener = j.sh[OPENER];
	*out = j.sh[USER];
out:
	for (i = 0; i < 2; i++) {
		if (j.chan[i] >= 0)
			close(j.chan[i]);
		if (j.res[i] >= 0)
			close(j.res[i]);
	}
	shared_free(j.sh, WHO_COUNT * sizeof(*j.sh));
	return ret;
}
