// SPDX-License-Identifier: GPL-2.0
/*
 * Regression tests for fixes to AppArmor's AF_UNIX mediation since it
 * was merged in v6.17-rc1, each named for its upstream commit (or, for a
 * distribution's fix not found upstream, for the function it fixes).  A
 * reproducer runs in child processes: a child the kernel kills, or one
 * that does not finish, is that test's FAIL, and the run goes on.  The
 * program runs last, since a kernel that oopses here may be left with a
 * lock held forever.
 *
 * The fixes, the first release with each, what a kernel without it does,
 * whether Debian's 7.2.13 and 7.3.4 carry it, and the test:
 *
 *   e2938ad00b21 apparmor: fix NULL pointer dereference in
 *     __unix_needs_revalidation; 7.0-rc1; oops on receipt of an O_PATH
 *     descriptor of a socket; 7.2.13 yes, 7.3.4 yes;
 *     fix_e2938ad00b21_o_path_socket_received.
 *   00b67657535d apparmor: fix NULL sock in aa_sock_file_perm; 7.0-rc1;
 *     oops on receipt of an O_PATH descriptor opened by a socket's
 *     /proc/self/fd link (sockfs: no struct socket), its message says by
 *     a race too; yes, yes; fix_00b67657535d_o_path_sockfs_received.
 *   9f79b1cee91b apparmor: fix fast path cache check for unix sockets;
 *     7.0-rc1; a shared lock (a request without send or receive) on a
 *     socket after a label change skips revalidation and is allowed;
 *     yes, yes; fix_9f79b1cee91b_lock_after_change_profile.
 *   6d25e7b47616 apparmor: fix refcount leak when updating the sk_ctx;
 *     7.2-rc1; a socket that noted a peer label when revalidated puts a
 *     reference of it too many when freed: a refcount underflow, then a
 *     use-after-free; yes, yes; fix_6d25e7b47616_peer_label_noted_then_closed
 *     (a debug kernel: refcount_t warning, KASAN; waited for up to 3 s,
 *     since the last put is an RCU callback).
 *   b1aea2c19607 apparmor: fix race in unix socket mediation when
 *     peer_path is used; 7.2-rc1; use-after-free when the peer closes
 *     during revalidation; yes, yes;
 *     fix_b1aea2c19607_peer_closed_during_revalidation (a debug kernel:
 *     KASAN; a race, as many rounds as 8 s allow, unix_fixes_race.c).
 *   4483efe4f215 apparmor: fix shadowing of plabel that prevents cache
 *     from being updated; 7.2-rc1; each revalidation against a peer
 *     leaks a reference of the peer's label, no decision changes; yes,
 *     yes; fix_4483efe4f215_peer_label_put_after_revalidation (any
 *     kernel: a removed profile's memory stays allocated).
 *   (open) the peer label update_sk_ctx() replaces in ctx->peer_lastupdate
 *     is not put: a leaked reference each time a socket is revalidated
 *     against a new peer label; 7.2.13 no, 7.3.4 no, nor the July 2026
 *     posting; fix_update_sk_ctx_replaced_peer_label_put (any kernel);
 *     fix: "apparmor: put the peer label update_sk_ctx() replaces".
 *   (not found upstream) apparmor: fix NULL ctx->peer derefs in unix
 *     socket ctx updates; Debian 7.3.3-1 (#1145111), in 7.3.4's
 *     update_peer_ctx(); oops when a datagram socket connected with
 *     connect() is revalidated; 7.2.13 no, 7.3.4 yes;
 *     fix_update_peer_ctx_*.
 *   (not found upstream) apparmor: don't revalidate inherited files under
 *     files->file_lock; Debian 7.3.4; an exec holding a unix socket whose
 *     peer is bound to a path sleeps under a spinlock; 7.2.13 no, 7.3.4
 *     yes; fix_aa_inherit_files_exec_with_path_peer (a debug kernel:
 *     might_sleep()).
 *
 * Every test FAILs on a splat the kernel logs while it runs (KASAN,
 * lockdep, might_sleep(), refcount_t, an oops): for most of these bugs
 * only a debug kernel prints one (build_kernel.sh -d).  What the
 * reproducers' processes may do cites SEMANTICS: each profile grants
 * what its process does (FIX_ALLOWED), except the lock test's, which
 * grants no unix access.  The tests of the
 * peer label's references are in unix_fixes_refs.c, the race in
 * unix_fixes_race.c, both included below: one program, one list.
 *
 * update_peer_ctx(): when a task uses a unix socket under a label not
 * cached on it, aa_unix_file_perm() revalidates it and, for a datagram
 * socket, merges the user's label into its peer's ctx->peer.
 * socketpair() and a stream connect() set that field; a datagram
 * connect() never does, and 7.2 merged into it without a NULL check:
 * aa_label_merge() oopses under unix_sk(peer)->lock.  Three ways reach it
 * without anything else unusual: a write() after change_profile, receipt
 * with SCM_RIGHTS by a task under another profile (the file_receive
 * hook), and an exec into another profile while holding the socket
 * (aa_inherit_files()).  The peer's socket is then never closed: closing
 * it would take the lock the dead task holds.
 */

#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>

#include "unix_test.h"

/* Why a reproducer's process must finish: its profile allows it all. */
#define FIX_ALLOWED "[perm] [carry] [label]: allowed, its profile grants unix and file"

/*
 * Each TEST()'s limit, which the harness's 30 s did not meet: the tests
 * that load, use and remove a big profile four times took 25 s on a debug
 * kernel (build_kernel.sh -d) under qemu TCG, and 58 s (the open leak's)
 * with two other guests beside it on two cores; three times that.  A
 * production kernel takes a few seconds.
 */
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 180

#define FIX_PEER_CTX "update_peer_ctx()'s NULL check (Debian 7.3.3)"
/* argv[1] of this program exec'd by the exec reproducer. */
#define EXEC_ARG "--write-inherited"

/* Each process of a reproducer, and the profile it runs under. */
enum proc {
	KEEPER,		/* holds end 1, on an abstract name */
	CREATOR,	/* creates end 0 and connects it to end 1 */
	USER,		/* uses end 0 under another profile */
	PROC_COUNT,
};

static const char *const proc_name[] = {
	[KEEPER] = "keeper",
	[CREATOR] = "creator",
	[USER] = "user",
};

/* How end 0 reaches the user's profile. */
enum way {
	WAY_CHANGE_PROFILE,	/* the creator changes profile, then writes */
	WAY_SCM_RIGHTS,		/* the user receives it, then writes */
	WAY_EXEC,		/* the creator execs into the user's profile */
};

struct repro {
	enum way way;
	const char *profile[PROC_COUNT];
	char name[NAME_MAX_LEN];	/* end 1's abstract name */
	const char *self;		/* this program, for WAY_EXEC */
	char path[PATH_MAX];		/* e2938ad00b21: the socket's path */
	int ready[2];		/* the keeper says end 1 is bound */
	int release[2];		/* 'q': the keeper may close end 1 */
	int chan[2];		/* WAY_SCM_RIGHTS: unconfined, not checked */
	struct outcome *out;	/* one per process, shared */
};

/* @p with @rule, registered: its label, or the run ends. */
static const char *fix_profile(struct ctx *c, struct prof *p,
			       const char *rule)
{
	const char *label;

	rules(p, "%s", rule);
	label = registered(c, p);
	if (!label)
		ksft_exit_fail_msg("cannot register more profiles\n");
	return label;
}

/*
 * Every process may do all it does: only the kernel can stop it.  Each
 * way has profiles of its own: a kernel without 6d25e7b47616 takes a
 * reference of the keeper's label away with each socket revalidated
 * against it, and would free a profile that the next way's test uses.
 */
static void repro_profiles(struct ctx *c, enum way w,
			   const char *label[PROC_COUNT])
{
	static const char *const names[][PROC_COUNT] = {
		[WAY_CHANGE_PROFILE] = { "change_keeper", "change_creator",
					 "change_user" },
		[WAY_SCM_RIGHTS] = { "scm_keeper", "scm_creator", "scm_user" },
		[WAY_EXEC] = { "exec_keeper", "exec_creator", "exec_user" },
	};
	struct prof p[PROC_COUNT];
	int i;

	for (i = 0; i < PROC_COUNT; i++) {
		p[i] = (struct prof){ .name = names[w][i] };
		label[i] = fix_profile(c, &p[i],
				       "  unix,\n  file,\n  change_profile,\n");
	}
}

/*
 * Holds end 1 until told it may close it.  Without a word (the test saw
 * a child killed or hung) it keeps it for good, in a session of its own
 * and without the test's output, so that neither the harness nor the
 * kselftest runner waits for it.
 */
static void keeper_main(void *arg)
{
	struct repro *r = arg;
	struct outcome *out = &r->out[KEEPER];
	struct sockaddr_un addr;
	socklen_t len = unix_addr(&addr, r->name, true);
	int fd, null = open("/dev/null", O_RDWR);
	char c = 0;

	setsid();
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
	}
	close(r->ready[0]);
	close(r->release[1]);
	close(r->chan[0]);
	close(r->chan[1]);
	if (confine(out, STEP_CONFINE, r->profile[KEEPER], false, false))
		return;
	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (failed(out, STEP_CREATE, fd) ||
	    failed(out, STEP_BIND, bind(fd, (struct sockaddr *)&addr, len)))
		return;
	/* Done before the word: the test reads it once it has the word. */
	at(out, STEP_DONE);
	if (wrong(out, STEP_BIND, write(r->ready[1], "r", 1) == 1, FAULT_TEST))
		return;
	close(r->ready[1]);
	if (read(r->release[0], &c, 1) == 1 && c == 'q')
		return;
	for (;;)
		pause();
}

/* End 0: a datagram socket autobound and connected to end 1. */
static int connected_end(struct repro *r, struct outcome *out)
{
	struct sockaddr_un addr, any;
	socklen_t len = unix_addr(&addr, r->name, true);
	/* Inherited across the exec of WAY_EXEC. */
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0);

	if (failed(out, STEP_CREATE, fd) ||
	    failed(out, STEP_BIND, bind(fd, (struct sockaddr *)&any,
					unix_addr(&any, NULL, false))) ||
	    failed(out, STEP_CONNECT,
		   connect(fd, (struct sockaddr *)&addr, len)))
		return -1;
	return fd;
}

static int write_msg(struct outcome *out, int fd)
{
	char buf[MSG_LEN] = "unix_fixes_test";
	ssize_t n;

	at(out, STEP_OP);
	n = write(fd, buf, sizeof(buf));

	if (failed(out, STEP_OP, n))
		return -1;
	return wrong(out, STEP_OP, n == MSG_LEN, FAULT_SHORT) ? -1 : 0;
}

/* Execs this program into the user's profile, holding @fd; returns on failure. */
static void exec_user(struct repro *r, struct outcome *out, int fd)
{
	char fdarg[16];

	at(out, STEP_CONFINE_USER);
	out->err = -aa_confine_onexec(r->profile[USER]);
	if (out->err)
		return;
	snprintf(fdarg, sizeof(fdarg), "%d", fd);
	at(out, STEP_HANDOFF);
	execl(r->self, r->self, EXEC_ARG, fdarg, r->profile[USER],
	      (char *)NULL);
	failed(out, STEP_HANDOFF, -1);
}

static void creator_main(void *arg)
{
	struct repro *r = arg;
	struct outcome *out = &r->out[CREATOR];
	int fd;

	close(r->chan[1]);
	if (confine(out, STEP_CONFINE, r->profile[CREATOR], false, false))
		return;
	fd = connected_end(r, out);
	if (fd < 0)
		return;
	switch (r->way) {
	case WAY_CHANGE_PROFILE:
		if (confine(out, STEP_CONFINE_USER, r->profile[USER], false,
			    false) ||
		    write_msg(out, fd))
			return;
		break;
	case WAY_SCM_RIGHTS:
		if (send_fd(out, r->chan[0], fd))
			return;
		break;
	case WAY_EXEC:
		exec_user(r, out, fd);
		return;
	}
	at(out, STEP_DONE);
}

/* WAY_SCM_RIGHTS: the user receives end 0 and writes on it. */
static void user_main(void *arg)
{
	struct repro *r = arg;
	struct outcome *out = &r->out[USER];
	int fd;

	close(r->chan[0]);
	if (confine(out, STEP_CONFINE_USER, r->profile[USER], false, false))
		return;
	fd = recv_fd(out, r->chan[1]);
	if (fd >= 0 && !write_msg(out, fd))
		at(out, STEP_DONE);
}

/*
 * WAY_EXEC, after the exec: the label must be the user's profile, and
 * the inherited end 0 writable.  Exits 0 when it is.
 */
static int exec_main(const char *fdarg, const char *profile)
{
	struct outcome out = { };
	int ret;

	ret = aa_check_label(profile, false);
	if (ret) {
		fprintf(stderr, "after the exec: not labelled %s: %s\n",
			profile, strerror(-ret));
		return 1;
	}
	if (write_msg(&out, atoi(fdarg))) {
		fprintf(stderr, "after the exec: write: %s\n",
			strerror(out.err));
		return 1;
	}
	return 0;
}

static void run_repro(struct __test_metadata *_metadata, struct repro *r)
{
	pid_t pid[PROC_COUNT] = { };
	bool clean = true;
	char g[128];
	int i;

	ASSERT_EQ(0, pipe2(r->ready, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(r->release, O_CLOEXEC));
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
				r->chan));
	pid[KEEPER] = spawn(keeper_main, r);
	ASSERT_LT(0, pid[KEEPER]);
	close(r->ready[1]);
	close(r->release[0]);
	ASSERT_TRUE(readable(&r->out[KEEPER], STEP_BIND, r->ready[0], -1) &&
		    r->out[KEEPER].step == STEP_DONE) {
		TH_LOG("the keeper did not bind end 1: %s",
		       outcome_str(&r->out[KEEPER], g, sizeof(g)));
	}
	pid[CREATOR] = spawn(creator_main, r);
	if (r->way == WAY_SCM_RIGHTS)
		pid[USER] = spawn(user_main, r);
	close(r->chan[0]);
	close(r->chan[1]);
	for (i = CREATOR; i < PROC_COUNT; i++) {
		if (pid[i] <= 0)
			continue;
		reap(&r->out[i], pid[i]);
		/* The exec'd image says by its exit status. */
		if (r->way == WAY_EXEC && r->out[i].step == STEP_HANDOFF &&
		    !r->out[i].err && !r->out[i].fault)
			at(&r->out[i], STEP_DONE);
		if (r->out[i].step != STEP_DONE || r->out[i].err ||
		    r->out[i].fault)
			clean = false;
		EXPECT_TRUE(r->out[i].step == STEP_DONE && !r->out[i].err &&
			    !r->out[i].fault) {
			TH_LOG("%s (%s): %s%s", proc_name[i], FIX_ALLOWED,
			       outcome_str(&r->out[i], g, sizeof(g)),
			       r->out[i].fault == FAULT_CRASHED ||
			       r->out[i].fault == FAULT_HUNG ?
			       ": the kernel lacks " FIX_PEER_CTX : "");
		}
	}
	/* Only a kernel that did not stop a child may close end 1. */
	if (clean && write(r->release[1], "q", 1) == 1)
		reap(&r->out[KEEPER], pid[KEEPER]);
	close(r->release[1]);
	close(r->ready[0]);
}

static struct repro *repro_new(struct ctx *c, enum way way)
{
	struct repro *r = calloc(1, sizeof(*r));

	if (!r)
		ksft_exit_fail_msg("out of memory\n");
	r->way = way;
	repro_profiles(c, way, r->profile);
	return r;
}

static void check_peer_ctx(struct ctx *c, enum way way)
{
	struct __test_metadata *_metadata = c->metadata;
	struct repro *r = repro_new(c, way);
	char word[16];
	int i;

	if (c->collect) {
		free(r);
		return;
	}
	c->subs++;
	/* The name of a kept end 1 stays taken: one per way. */
	snprintf(word, sizeof(word), "peer_ctx%d", way);
	run_name(r->name, sizeof(r->name), word);
	r->self = aa_self_exe();
	r->out = shared_alloc(PROC_COUNT * sizeof(*r->out));
	ASSERT_NE(NULL, r->out);
	for (i = 0; i < PROC_COUNT; i++)
		r->out[i] = (struct outcome){ .step = STEP_NOT_RUN };
	run_repro(_metadata, r);
	shared_free(r->out, PROC_COUNT * sizeof(*r->out));
	free(r);
}

static void check_peer_ctx_change(struct ctx *c)
{
	check_peer_ctx(c, WAY_CHANGE_PROFILE);
}

static void check_peer_ctx_scm_rights(struct ctx *c)
{
	check_peer_ctx(c, WAY_SCM_RIGHTS);
}

static void check_peer_ctx_exec(struct ctx *c)
{
	check_peer_ctx(c, WAY_EXEC);
}

/*
 * aa_inherit_files() (Debian 7.3.4; 7.2 lacks the fix): an exec
 * into another profile revalidates each inherited file.  7.2 did it from
 * an iterate_fd() callback, under files->file_lock, and the
 * revalidation of a unix socket whose peer is bound to a path takes and
 * puts that path: path_put() may sleep (dput()).  Only a kernel with
 * CONFIG_DEBUG_ATOMIC_SLEEP reports it.
 */
static void path_peer_creator(void *arg)
{
	struct repro *r = arg;
	struct outcome *out = &r->out[CREATOR];
	struct sockaddr_un addr;
	socklen_t len = unix_addr(&addr, r->path, false);
	int peer, fd;

	if (confine(out, STEP_CONFINE, r->profile[CREATOR], false, false))
		return;
	/* Inherited too: end 1 stays bound on its path across the exec. */
	peer = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (failed(out, STEP_CREATE, peer) ||
	    failed(out, STEP_BIND, bind(peer, (struct sockaddr *)&addr, len)))
		return;
	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (failed(out, STEP_CREATE, fd) ||
	    failed(out, STEP_CONNECT,
		   connect(fd, (struct sockaddr *)&addr, len)))
		return;
	exec_user(r, out, fd);
}

static void check_inherit_path_peer(struct ctx *c)
{
	struct __test_metadata *_metadata = c->metadata;
	struct repro *r = repro_new(c, WAY_EXEC);
	struct outcome *out;
	char name[NAME_MAX_LEN], g[128];
	pid_t pid;

	if (c->collect) {
		free(r);
		return;
	}
	c->subs++;
	run_name(name, sizeof(name), "inherit");
	snprintf(r->path, sizeof(r->path), "%s/%s", aa_policy_dir(policy),
		 name);
	r->self = aa_self_exe();
	r->out = shared_alloc(PROC_COUNT * sizeof(*r->out));
	ASSERT_NE(NULL, r->out);
	out = &r->out[CREATOR];
	*out = (struct outcome){ .step = STEP_NOT_RUN };
	pid = spawn(path_peer_creator, r);
	ASSERT_LT(0, pid);
	reap(out, pid);
	/* The exec'd image says by its exit status. */
	if (out->step == STEP_HANDOFF && !out->err && !out->fault)
		at(out, STEP_DONE);
	EXPECT_TRUE(out->step == STEP_DONE && !out->err && !out->fault) {
		TH_LOG("exec holding a socket whose peer is on a path (%s): %s",
		       FIX_ALLOWED, outcome_str(out, g, sizeof(g)));
	}
	unlink(r->path);
	shared_free(r->out, PROC_COUNT * sizeof(*r->out));
	free(r);
}

/*
 * e2938ad00b21: a descriptor opened with O_PATH on a socket's path is a
 * socket inode with no socket behind it.  Its receipt with SCM_RIGHTS by
 * a confined task revalidates it (file_receive), and __is_unix_file()
 * read sock->sk of a NULL sock.
 */
static void o_path_sender(void *arg)
{
	struct repro *r = arg;
	struct outcome *out = &r->out[CREATOR];
	struct sockaddr_un addr;
	socklen_t len = unix_addr(&addr, r->path, false);
	char link[32];
	int sock, fd;

	close(r->chan[1]);
	if (confine(out, STEP_CONFINE, r->profile[CREATOR], false, false))
		return;
	sock = socket(AF_UNIX, SOCK_STREAM, 0);
	if (failed(out, STEP_CREATE, sock))
		return;
	/* No path: the socket's own inode, on sockfs, by its fd link. */
	snprintf(link, sizeof(link), "/proc/self/fd/%d", sock);
	if (r->path[0] &&
	    failed(out, STEP_BIND, bind(sock, (struct sockaddr *)&addr, len)))
		return;
	fd = open(r->path[0] ? r->path : link, O_PATH | O_CLOEXEC);
	if (failed(out, STEP_CREATE, fd) || send_fd(out, r->chan[0], fd))
		return;
	at(out, STEP_DONE);
}

static void o_path_receiver(void *arg)
{
	struct repro *r = arg;
	struct outcome *out = &r->out[USER];

	close(r->chan[0]);
	if (confine(out, STEP_CONFINE_USER, r->profile[USER], false, false) ||
	    recv_fd(out, r->chan[1]) < 0)
		return;
	at(out, STEP_DONE);
}

/*
 * An O_PATH descriptor of a socket, received with SCM_RIGHTS by a task
 * under another profile: the file has no struct socket behind it.  On
 * @on_path, one opened by the socket's path (e2938ad00b21); else one
 * opened by its /proc/self/fd link, which is on sockfs, where
 * aa_file_perm() asks aa_sock_file_perm() (00b67657535d).
 */
static void o_path_received(struct ctx *c, bool on_path, const char *fix)
{
	struct __test_metadata *_metadata = c->metadata;
	struct repro *r = repro_new(c, WAY_SCM_RIGHTS);
	pid_t pid[PROC_COUNT] = { };
	char name[NAME_MAX_LEN], g[128];
	int i;

	if (c->collect) {
		free(r);
		return;
	}
	c->subs++;
	run_name(name, sizeof(name), "o_path");
	if (on_path)
		snprintf(r->path, sizeof(r->path), "%s/%s",
			 aa_policy_dir(policy), name);
	r->out = shared_alloc(PROC_COUNT * sizeof(*r->out));
	ASSERT_NE(NULL, r->out);
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
				r->chan));
	for (i = 0; i < PROC_COUNT; i++)
		r->out[i] = (struct outcome){ .step = STEP_NOT_RUN };
	pid[CREATOR] = spawn(o_path_sender, r);
	pid[USER] = spawn(o_path_receiver, r);
	close(r->chan[0]);
	close(r->chan[1]);
	for (i = CREATOR; i < PROC_COUNT; i++) {
		reap(&r->out[i], pid[i]);
		EXPECT_TRUE(r->out[i].step == STEP_DONE && !r->out[i].err &&
			    !r->out[i].fault) {
			TH_LOG("%s of an O_PATH socket descriptor%s (%s): %s%s%s",
			       i == CREATOR ? "sender" : "receiver",
			       on_path ? "" : " (sockfs)", FIX_ALLOWED,
			       outcome_str(&r->out[i], g, sizeof(g)),
			       r->out[i].fault == FAULT_CRASHED ?
			       ": the kernel lacks " : "",
			       r->out[i].fault == FAULT_CRASHED ? fix : "");
		}
	}
	if (on_path)
		unlink(r->path);
	shared_free(r->out, PROC_COUNT * sizeof(*r->out));
	free(r);
}

static void check_o_path(struct ctx *c)
{
	o_path_received(c, true, "e2938ad00b21");
}

static void check_o_path_sockfs(struct ctx *c)
{
	o_path_received(c, false, "00b67657535d");
}

/*
 * 9f79b1cee91b: aa_file_perm()'s fast path for unix sockets was taken
 * when the socket needed revalidation instead of when it did not.  A
 * request the file already allowed once (a lock taken under the
 * creator's profile) was then granted again after a change to a profile
 * without unix rules, unchecked.  Only a request without send or
 * receive took that path: __unix_needs_revalidation() then said no to
 * any NET_PEER_MASK bit.  LOCK_SH asks for the lock alone; LOCK_EX is
 * F_WRLCK, lock and write, and a write is a send (flock_translate_cmd(),
 * apparmor_file_lock()), which was revalidated all along.
 */
static void check_lock(struct ctx *c)
{
	struct __test_metadata *_metadata = c->metadata;
	struct prof full = { .name = "lock_full" };
	struct prof none = { .name = "lock_no_unix" };
	const char *label[2];
	struct outcome *out, want = { .step = STEP_OP, .err = EACCES };
	char g[128], w[128];
	pid_t pid;
	int sv[2];

	label[0] = fix_profile(c, &full, "  unix,\n  file,\n  change_profile,\n");
	label[1] = fix_profile(c, &none, "  file,\n");
	if (c->collect)
		return;
	c->subs++;
	out = shared_alloc(sizeof(*out));
	ASSERT_NE(NULL, out);
	*out = (struct outcome){ .step = STEP_NOT_RUN };
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (confine(out, STEP_CONFINE, label[0], false, false) ||
		    failed(out, STEP_CREATE,
			   socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) ||
		    failed(out, STEP_BEFORE, flock(sv[0], LOCK_SH)) ||
		    failed(out, STEP_BEFORE, flock(sv[0], LOCK_UN)) ||
		    confine(out, STEP_CONFINE_USER, label[1], false, false))
			_exit(0);
		if (!failed(out, STEP_OP, flock(sv[0], LOCK_SH)))
			at(out, STEP_DONE);
		_exit(0);
	}
	reap(out, pid);
	EXPECT_TRUE(outcome_eq(&want, out)) {
		TH_LOG("flock(LOCK_SH), no unix rules (%s): expected %s, got %s%s",
		       "[label] [perm]: the new profile decides, it grants no unix access",
		       outcome_str(&want, w, sizeof(w)),
		       outcome_str(out, g, sizeof(g)),
		       out->step == STEP_DONE ?
		       ": the kernel lacks 9f79b1cee91b" : "");
	}
	shared_free(out, sizeof(*out));
}

#include "unix_fixes_refs.c"
#include "unix_fixes_race.c"

static void run_fix(struct __test_metadata *_metadata, check_fn *fn)
{
	if (env.enabled && !env.have_v9_unix)
		SKIP(return, "%s",
		     "kernel without AppArmor network_v9/af_unix (6.17+): no unix socket revalidation");
	run_abi(_metadata, AA_ABI_NEW, fn);
}

TEST(fix_e2938ad00b21_o_path_socket_received)
{
	run_fix(_metadata, check_o_path);
}

TEST(fix_00b67657535d_o_path_sockfs_received)
{
	run_fix(_metadata, check_o_path_sockfs);
}

TEST(fix_9f79b1cee91b_lock_after_change_profile)
{
	run_fix(_metadata, check_lock);
}

TEST(fix_6d25e7b47616_peer_label_noted_then_closed)
{
	run_fix(_metadata, check_noted_refcount);
}

TEST(fix_b1aea2c19607_peer_closed_during_revalidation)
{
	run_fix(_metadata, check_peer_closed);
}

TEST(fix_4483efe4f215_peer_label_put_after_revalidation)
{
	run_fix(_metadata, check_noted_put);
}

TEST(fix_update_sk_ctx_replaced_peer_label_put)
{
	run_fix(_metadata, check_noted_replaced);
}

TEST(fix_aa_inherit_files_exec_with_path_peer)
{
	run_fix(_metadata, check_inherit_path_peer);
}

TEST(fix_update_peer_ctx_write_after_change_profile)
{
	run_fix(_metadata, check_peer_ctx_change);
}

TEST(fix_update_peer_ctx_receipt_with_scm_rights)
{
	run_fix(_metadata, check_peer_ctx_scm_rights);
}

TEST(fix_update_peer_ctx_exec_into_another_profile)
{
	run_fix(_metadata, check_peer_ctx_exec);
}

static check_fn *const new_checks[] = {
	check_o_path,
	check_o_path_sockfs,
	check_lock,
	check_noted_refcount,
	check_peer_closed,
	check_noted_put,
	check_noted_replaced,
	check_inherit_path_peer,
	check_peer_ctx_change,
	check_peer_ctx_scm_rights,
	check_peer_ctx_exec,
};

int main(int argc, char **argv)
{
	const struct checks checks[AA_ABI_COUNT] = {
		[AA_ABI_NEW] = { new_checks, ARRAY_SIZE(new_checks) },
	};
	const struct checks *const areas[] = { checks };

	if (argc == 4 && !strcmp(argv[1], EXEC_ARG))
		return exec_main(argv[2], argv[3]);
	return unix_test_main(argc, argv, areas, ARRAY_SIZE(areas));
}
