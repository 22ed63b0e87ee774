// SPDX-License-Identifier: GPL-2.0
/*
 * AppArmor AF_UNIX mediation when the peer's profile changes under its
 * sockets.  After apparmor_parser -r the new version of a profile is the
 * policy for everything labelled with it, sockets made before the
 * replacement included; after apparmor_parser -R what the profile
 * labelled is unconfined (the kernel redirects the removed profile to
 * its namespace's unconfined label, as it does for the tasks).  So an
 * operation that asks the peer's profile, the receiver of a datagram or
 * the listener a connect() reaches, must be decided the same for the
 * peer's socket made before the change as for one made after it, and
 * audited the same.
 *
 * R, a task under the profile that changes, binds socket A; S, under a
 * profile allowing every unix operation but getopt, uses A; R's profile
 * is replaced or removed; R binds socket B; S uses A, then B.  After each
 * operation S calls getsockopt(), which its profile refuses: the audit
 * record of that refusal marks where the operation's own records end, so
 * that a record's absence is read as surely as its presence.
 */

#include <fcntl.h>

#include "audit_log.h"
#include "unix_test.h"

/* How S reaches R's socket. */
enum peer_route {
	ROUTE_SENDTO,		/* dgram sendto() to the bound socket */
	/* dgram connect() before the change, send() on it after it */
	ROUTE_CONNECTED,
	ROUTE_STREAM,		/* connect() to a stream listener */
	ROUTE_SEQPACKET,	/* connect() to a seqpacket listener */
};

/*
 * Whether the operation asks R's profile, by ABI: where it does, R's
 * version at the time of the operation decides; where it does not, no
 * version does.  An open question of SEMANTICS: the kernel is known not
 * to ask it.
 */
struct peer_row {
	enum peer_route route;
	enum sock_kind kind;	/* KIND_ABSTRACT or KIND_PATHNAME */
	bool asked[AA_ABI_COUNT];
	const char *why[AA_ABI_COUNT];
	const char *question[AA_ABI_COUNT];
};

#define ASKED .asked = { [AA_ABI_OLD] = true, [AA_ABI_NEW] = true }

/* clang-format off */
static const struct peer_row peer_rows[] = {
	{ ROUTE_SENDTO, KIND_ABSTRACT, ASKED,
	  .why = { [AA_ABI_OLD] = "[receive] [replace]: the receiver's version, at each send",
		   [AA_ABI_NEW] = "[receive] [replace]: the receiver's version, at each send" } },
	{ ROUTE_SENDTO, KIND_PATHNAME, ASKED,
	  .why = { [AA_ABI_OLD] = "[old] [receive] [replace]: at each send",
		   [AA_ABI_NEW] = "[path] [replace]: its path's file rule, at each send" } },
	{ ROUTE_CONNECTED, KIND_ABSTRACT, ASKED,
	  .why = { [AA_ABI_OLD] = "[receive] [replace]: a connected socket's each send too",
		   [AA_ABI_NEW] = "[receive] [replace]: a connected socket's each send too" } },
	{ ROUTE_CONNECTED, KIND_PATHNAME, ASKED,
	  .why = { [AA_ABI_OLD] = "[old] [receive] [replace]: each send",
		   [AA_ABI_NEW] = "[path] [replace]: its path's file rule, at each send" } },
	{ ROUTE_STREAM, KIND_ABSTRACT, ASKED,
	  .why = { [AA_ABI_OLD] = "[peer] [replace]: connect() needs the listener's accept",
		   [AA_ABI_NEW] = "[peer] [replace]: connect() needs the listener's accept" } },
	{ ROUTE_STREAM, KIND_PATHNAME,
	  .asked = { [AA_ABI_OLD] = true },
	  .why = { [AA_ABI_OLD] = "[old] [peer] [replace]: no path is seen",
		   [AA_ABI_NEW] = "[path]: the connecting task's file rule on the path decides" },
	  .question = { [AA_ABI_OLD] = "Q3" } },
	{ ROUTE_SEQPACKET, KIND_ABSTRACT, ASKED,
	  .why = { [AA_ABI_OLD] = "[peer] [replace]: connect() needs the listener's accept",
		   [AA_ABI_NEW] = "[peer] [replace]: connect() needs the listener's accept" } },
	{ ROUTE_SEQPACKET, KIND_PATHNAME,
	  .asked = { [AA_ABI_OLD] = true },
	  .why = { [AA_ABI_OLD] = "[old] [peer] [replace]: no path is seen",
		   [AA_ABI_NEW] = "[path]: the connecting task's file rule on the path decides" },
	  .question = { [AA_ABI_OLD] = "Q3" } },
};

#undef ASKED
/* clang-format on */

/* R's profile before and after the change. */
enum peer_change {
	CHANGE_NARROWER,	/* replaced by a version lacking the permission */
	CHANGE_WIDER,		/* replaced by one granting what it lacked */
	CHANGE_REMOVED,		/* lacking it, then removed */
};

/* What each change allows before and after it, and why. */
static const struct {
	const char *name;
	bool before, after;
	const char *why;
} peer_changes[] = {
	[CHANGE_NARROWER] = { "narrower", true, false,
		"[replace]: R's new version lacks the permission: refused" },
	[CHANGE_WIDER] = { "wider", false, true,
		"[replace]: R's new version grants what its old one lacked: allowed" },
	[CHANGE_REMOVED] = { "removed", false, true,
		"[remove]: what a removed profile labelled is unconfined: allowed" },
};

/* The versions of R's profile a run replaces it with. */
enum peer_version {
	PV_FULL,		/* every unix permission (R as loaded) */
	PV_NO_RECEIVE,
	/* without receive, and without read on the run directory's files */
	PV_NO_RECEIVE_FILE,
	PV_NO_ACCEPT,
	PV_COUNT,
};

static const char *const pv_name[] = {
	[PV_FULL] = "full",
	[PV_NO_RECEIVE] = "no-receive",
	[PV_NO_RECEIVE_FILE] = "no-receive-file",
	[PV_NO_ACCEPT] = "no-accept",
};

/* R's profile text of version @pv, in @abi. */
static void peer_version_text(struct prof *p, enum aa_abi abi,
			      enum peer_version pv)
{
	switch (pv) {
	case PV_FULL:
		all_perms_but(p, abi, NULL);
		break;
	case PV_NO_RECEIVE:
		all_perms_but(p, abi, "receive");
		break;
	case PV_NO_RECEIVE_FILE:
		prof_all_perms_but_files(p, aa_policy_dir(policy), "w", abi,
					 "receive");
		break;
	default:
		all_perms_but(p, abi, "accept");
		break;
	}
}

/* The version lacking what @row's operation asks of R. */
static enum peer_version peer_lacking(const struct peer_row *row)
{
	if (row->route == ROUTE_STREAM || row->route == ROUTE_SEQPACKET)
		return PV_NO_ACCEPT;
	return row->kind == KIND_PATHNAME ? PV_NO_RECEIVE_FILE : PV_NO_RECEIVE;
}

static bool peer_dgram(const struct peer_row *row)
{
	return row->route == ROUTE_SENDTO || row->route == ROUTE_CONNECTED;
}

/* S's operations: before the change to A, after it to A, then to B. */
enum { PEER_BEFORE, PEER_OLD, PEER_NEW, PEER_OPS };

/* Written by the children, read by the test. */
struct peer_shared {
	struct outcome r;
	struct outcome s;	/* S's own steps, not its operations */
	struct outcome op[PEER_OPS];
};

struct peer_run {
	const struct peer_row *row;
	const char *r_prof, *s_prof;
	char addr[2][PATH_MAX];		/* A and B: a path or abstract name */
	int to_r[2], from_r[2], to_s[2], from_s[2];
	struct peer_shared *sh;
	/* S's sockets */
	int dgram, conn[2];
	bool connected[2];
};

/* One byte on @fd: the other process may go on. */
static void tell(int fd)
{
	if (write(fd, "g", 1) != 1)
		perror("write");
}

/* Waits for tell() on @fd; false, recorded at @where, if none came. */
static bool go(struct outcome *o, enum step where, int fd)
{
	char c;

	return readable(o, where, fd, -1) &&
	       !wrong(o, where, read(fd, &c, 1) == 1, FAULT_PEER_STOPPED);
}

static socklen_t peer_addr(const struct peer_run *p, int which,
			   struct sockaddr_un *addr)
{
	return unix_addr(addr, p->addr[which],
			 p->row->kind == KIND_ABSTRACT);
}

static int peer_type(const struct peer_row *row)
{
	if (row->route == ROUTE_STREAM)
		return SOCK_STREAM;
	return row->route == ROUTE_SEQPACKET ? SOCK_SEQPACKET : SOCK_DGRAM;
}

/* R: binds A, waits for the change, binds B, waits for the end. */
static void peer_r(void *arg)
{
	struct peer_run *p = arg;
	struct outcome *o = &p->sh->r;
	struct sockaddr_un addr;
	int i, fd, type = peer_type(p->row);
	socklen_t len;

	if (confine(o, STEP_CONFINE, p->r_prof, false, false))
		return;
	for (i = 0; i < 2; i++) {
		if (i && !go(o, STEP_HANDOFF, p->to_r[0]))
			return;
		fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
		if (failed(o, STEP_CREATE, fd))
			return;
		len = peer_addr(p, i, &addr);
		if (failed(o, STEP_BIND, bind(fd, (struct sockaddr *)&addr, len)))
			return;
		if (type != SOCK_DGRAM && failed(o, STEP_LISTEN, listen(fd, 4)))
			return;
		tell(p->from_r[1]);
	}
	if (go(o, STEP_DONE, p->to_r[0]))
		at(o, STEP_DONE);
}

/* S's operation on R's socket @which; the outcome in @o. */
static void peer_op(struct peer_run *p, int which, struct outcome *o)
{
	char msg[MSG_LEN] = "peer";
	struct sockaddr_un addr;
	socklen_t len = peer_addr(p, which, &addr);
	int fd;

	switch (p->row->route) {
	case ROUTE_SENDTO:
		if (failed(o, STEP_SENDTO,
			   sendto(p->dgram, msg, MSG_LEN, MSG_DONTWAIT,
				  (struct sockaddr *)&addr, len)))
			return;
		break;
	case ROUTE_CONNECTED:
		if (!p->connected[which]) {
			if (failed(o, STEP_CONNECT,
				   connect(p->conn[which],
					   (struct sockaddr *)&addr, len)))
				return;
			p->connected[which] = true;
		}
		if (failed(o, STEP_SENDMSG,
			   send(p->conn[which], msg, MSG_LEN, MSG_DONTWAIT)))
			return;
		break;
	default:
		/* Left open: the listener's backlog holds the connection. */
		fd = socket(AF_UNIX, peer_type(p->row) | SOCK_CLOEXEC, 0);
		if (wrong(o, STEP_CREATE, fd >= 0, FAULT_TEST) ||
		    failed(o, STEP_CONNECT,
			   connect(fd, (struct sockaddr *)&addr, len)))
			return;
		break;
	}
	at(o, STEP_DONE);
}

/* The refusal whose audit record marks the end of an operation's. */
static bool peer_mark(struct peer_run *p)
{
	int type;
	socklen_t len = sizeof(type);

	errno = 0;
	return !getsockopt(p->dgram, SOL_SOCKET, SO_TYPE, &type, &len) ||
	       errno != EACCES;
}

static void peer_s(void *arg)
{
	struct peer_run *p = arg;
	struct outcome *o = &p->sh->s;
	int i;

	if (confine(o, STEP_CONFINE, p->s_prof, false, false))
		return;
	p->dgram = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	p->conn[0] = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	p->conn[1] = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (failed(o, STEP_CREATE, p->dgram) ||
	    failed(o, STEP_CREATE, p->conn[0]) ||
	    failed(o, STEP_CREATE, p->conn[1]))
		return;
	for (i = 0; i < PEER_OPS; i++) {
		if (i != PEER_NEW && !go(o, STEP_HANDOFF, p->to_s[0]))
			return;
		peer_op(p, i == PEER_NEW, &p->sh->op[i]);
		/* getopt is refused and audited: the mark must be there. */
		if (wrong(o, STEP_GETOPT, !peer_mark(p), FAULT_TEST))
			return;
		if (i != PEER_OLD)
			tell(p->from_s[1]);
	}
	at(o, STEP_DONE);
}

struct peer_profs {
	const char *r, *s;
	char blob[PV_COUNT][NAME_MAX_LEN + 32];
};

/* R's and S's names, registered in collect mode; false if not there. */
static bool peer_names(struct ctx *c, struct peer_profs *pp)
{
	const char *abi = c->v->abi == AA_ABI_NEW ? "new" : "old";
	char rname[32], sname[32];
	struct prof r = { .name = rname }, s = { .name = sname };

	/* Names are global: one pair per ABI. */
	snprintf(rname, sizeof(rname), "peer_r_%s", abi);
	snprintf(sname, sizeof(sname), "peer_s_%s", abi);
	peer_version_text(&r, c->v->abi, PV_FULL);
	all_perms_but(&s, c->v->abi, "getopt");
	pp->r = registered(c, &r);
	pp->s = registered(c, &s);
	if (c->collect && (!pp->r || !pp->s))
		ksft_exit_fail_msg("cannot register more profiles\n");
	return pp->r && pp->s;
}

/* Each version of R compiled, once a run. */
static int peer_compile(struct ctx *c, struct peer_profs *pp, char *err,
			size_t len)
{
	struct prof p = { };
	enum peer_version pv;
	int ret;

	for (pv = 0; pv < PV_COUNT; pv++) {
		peer_version_text(&p, c->v->abi, pv);
		snprintf(pp->blob[pv], sizeof(pp->blob[pv]), "%s-%s.bin",
			 pp->r, pv_name[pv]);
		ret = aa_policy_compile(policy, env.parser, c->v->abi, pp->r,
					p.text, pp->blob[pv], err, len);
		if (ret)
			return ret;
	}
	return 0;
}

#define PEER_AUDIT_MS 5000

/*
 * Reads the audit records of S's next operation, up to the mark: 1 if
 * R's refusal of @op_name is among them (copied to @rec), 0 if not, or
 * -errno when the mark did not come.
 */
static int peer_audited(int fd, const struct peer_profs *pp,
			const char *op_name, char *rec, size_t len)
{
	char s_kv[NAME_MAX_LEN + 16], r_kv[NAME_MAX_LEN + 16], op_kv[32];
	const char *const mark[] = { "apparmor=\"DENIED\"",
				     "operation=\"getsockopt\"", s_kv, NULL };
	const char *const want[] = { "apparmor=\"DENIED\"", op_kv, r_kv,
				     NULL };

	snprintf(s_kv, sizeof(s_kv), "profile=\"%s\"", pp->s);
	snprintf(r_kv, sizeof(r_kv), "profile=\"%s\"", pp->r);
	snprintf(op_kv, sizeof(op_kv), "operation=\"%s\"", op_name);
	return audit_log_until(fd, mark, want, rec, len, PEER_AUDIT_MS);
}

/* R's refusal of @op_name audited exactly when @refused. */
static void peer_audit(struct __test_metadata *_metadata, int fd,
		       const struct peer_profs *pp, const char *op_name,
		       bool refused, const char *desc)
{
	char rec[4096];
	int ret;

	ret = peer_audited(fd, pp, op_name, rec, sizeof(rec));
	ASSERT_LE(0, ret) {
		TH_LOG("%s: S's getsockopt() refusal not audited: %s", desc,
		       strerror(-ret));
	}
	EXPECT_EQ(refused, ret == 1) {
		if (ret == 1)
			TH_LOG("%s: audited, though allowed: %s", desc, rec);
		else
			TH_LOG("%s: no %s refusal audited for %s", desc,
			       op_name, pp->r);
	}
}

/* R's profile as version @v (PV_COUNT: removed); 0 or -errno. */
static int peer_become(const struct peer_profs *pp, int v)
{
	if (v == PV_COUNT)
		return aa_policy_remove(policy, pp->r);
	return aa_policy_replace(policy, pp->blob[v]);
}

static void peer_pipes(struct peer_run *p, bool open_them)
{
	int *fds[] = { p->to_r, p->from_r, p->to_s, p->from_s };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fds); i++) {
		if (open_them) {
			if (pipe2(fds[i], O_CLOEXEC))
				ksft_exit_fail_msg("pipe2: %s\n", strerror(errno));
			continue;
		}
		close(fds[i][0]);
		close(fds[i][1]);
	}
}

/* The operation's name in the audit record of a refusal. */
static const char *peer_op_name(const struct peer_row *row)
{
	return peer_dgram(row) ? "sendmsg" : "connect";
}

/* "dgram sendto(), abstract, R's profile narrower, @when (why; why)" */
static void peer_desc(char *buf, size_t len, const struct peer_row *row,
		      enum aa_abi abi, enum peer_change change,
		      const char *when)
{
	static const char *const route[] = {
		[ROUTE_SENDTO] = "dgram sendto()",
		[ROUTE_CONNECTED] = "connected dgram send()",
		[ROUTE_STREAM] = "stream connect()",
		[ROUTE_SEQPACKET] = "seqpacket connect()",
	};

	snprintf(buf, len, "%s, %s, R's profile %s%s%s (%s; %s)",
		 route[row->route],
		 row->kind == KIND_ABSTRACT ? "abstract" : "pathname",
		 peer_changes[change].name, when ? ", " : "", when ?: "",
		 peer_changes[change].why, row->why[abi]);
}

/*
 * One run: R under version @v1 binds A, S uses A, R's profile becomes
 * @v2 (PV_COUNT: removed), R binds B, S uses A, then B.  @sh gets R's,
 * S's and S's operations' outcomes, @self where the test's own waits
 * stopped.  0, or -errno when R's profile could not be loaded or changed.
 */
static int peer_world(const struct peer_profs *pp, const struct peer_row *row,
		      enum peer_version v1, int v2, struct peer_shared *sh,
		      struct outcome *self)
{
	struct peer_run p = { .row = row, .r_prof = pp->r, .s_prof = pp->s,
			      .sh = sh };
	char name[NAME_MAX_LEN];
	pid_t pid_r, pid_s = -1;
	bool stopped;
	int i, ret;

	*self = (struct outcome){ .step = STEP_DONE };
	memset(sh, 0, sizeof(*sh));
	ret = peer_become(pp, v1);
	if (ret)
		return ret;
	for (i = 0; i < 2; i++) {
		run_name(name, sizeof(name), i ? "peer_b" : "peer_a");
		if (row->kind == KIND_PATHNAME)
			snprintf(p.addr[i], sizeof(p.addr[i]), "%s/%s",
				 aa_policy_dir(policy), name);
		else
			snprintf(p.addr[i], sizeof(p.addr[i]), "%s", name);
		if (row->kind == KIND_PATHNAME)
			unlink(p.addr[i]);
	}
	peer_pipes(&p, true);

	/* Each step waits for the last; one that stopped stops the rest. */
	pid_r = spawn(peer_r, &p);
	stopped = pid_r < 0 || !go(self, STEP_BIND, p.from_r[0]);
	if (!stopped) {
		pid_s = spawn(peer_s, &p);
		tell(p.to_s[1]);
		stopped = pid_s < 0 || !go(self, STEP_BEFORE, p.from_s[0]);
	}
	if (!stopped) {
		ret = peer_become(pp, v2);
		tell(p.to_r[1]);
		stopped = ret || !go(self, STEP_HANDOFF, p.from_r[0]);
	}
	if (!stopped) {
		tell(p.to_s[1]);
		go(self, STEP_OP, p.from_s[0]);
	}
	tell(p.to_r[1]);
	if (pid_s > 0)
		reap(&sh->s, pid_s);
	if (pid_r > 0)
		reap(&sh->r, pid_r);
	peer_pipes(&p, false);
	for (i = 0; i < 2 && row->kind == KIND_PATHNAME; i++)
		unlink(p.addr[i]);
	return ret;
}

/* R's versions before and after @change, for @row's operation. */
static void peer_versions(enum peer_change change, const struct peer_row *row,
			  enum peer_version *v1, int *v2)
{
	enum peer_version lacking = peer_lacking(row);

	*v1 = change == CHANGE_NARROWER ? PV_FULL : lacking;
	*v2 = change == CHANGE_NARROWER ? (int)lacking :
	      change == CHANGE_WIDER ? PV_FULL : PV_COUNT;
}

static void peer_sub(struct ctx *c, const struct peer_profs *pp, int afd,
		     enum peer_change change, const struct peer_row *row)
{
	struct __test_metadata *_metadata = c->metadata;
	static const char *const when[] = {
		[PEER_BEFORE] = "before the change, to A",
		[PEER_OLD] = "after it, to A (made before it)",
		[PEER_NEW] = "after it, to B (made after it)",
	};
	struct outcome ok = { .step = STEP_DONE };
	struct outcome no = { .step = STEP_DONE };
	struct outcome self, want;
	struct peer_shared *sh;
	enum aa_abi abi = c->v->abi;
	enum peer_version v1;
	char desc[512];
	bool allowed, known;
	int i, v2, ret;

	c->subs++;
	sh = shared_alloc(sizeof(*sh));
	ASSERT_NE(NULL, sh);
	peer_versions(change, row, &v1, &v2);
	ret = peer_world(pp, row, v1, v2, sh, &self);
	peer_desc(desc, sizeof(desc), row, abi, change, NULL);
	EXPECT_EQ(0, ret) TH_LOG("%s: loading or changing R's profile: %s",
				 desc, strerror(-ret));
	expect_outcome(_metadata, desc, "the test", ok, &self);
	expect_outcome(_metadata, desc, "R", ok, &sh->r);
	expect_outcome(_metadata, desc, "S", ok, &sh->s);
	for (i = 0; i < PEER_OPS && !ret && sh->s.step == STEP_DONE; i++) {
		allowed = !row->asked[abi] || (i == PEER_BEFORE ?
					       peer_changes[change].before :
					       peer_changes[change].after);
		want = ok;
		if (!allowed) {
			/* The connected route connects where it has not yet. */
			no.step = row->route == ROUTE_SENDTO ? STEP_SENDTO :
				  row->route == ROUTE_CONNECTED &&
				  i == PEER_OLD && peer_changes[change].before ?
				  STEP_SENDMSG : STEP_CONNECT;
			no.err = EACCES;
			want = no;
		}
		peer_desc(desc, sizeof(desc), row, abi, change, when[i]);
		/* Not asked, as the kernel is known to do: allowed. */
		expect_policy(_metadata, desc, "S", want, row->question[abi],
			      ok, &sh->op[i]);
		known = row->question[abi] && outcome_eq(&ok, &sh->op[i]);
		peer_audit(_metadata, afd, pp, peer_op_name(row),
			   !allowed && !known, desc);
	}
	shared_free(sh, sizeof(*sh));
}

/*
 * R's and S's names, and for a run the audit log and R's versions
 * compiled: the audit socket, or -1 when there is nothing to run
 * (collect mode, a SKIP, a failure).
 */
static int peer_begin(struct ctx *c, struct peer_profs *pp)
{
	struct __test_metadata *_metadata = c->metadata;
	char why[160], err[4096];
	int fd, ret;

	if (!peer_names(c, pp) || c->collect)
		return -1;
	fd = audit_log_open(why, sizeof(why));
	if (fd < 0)
		SKIP(return -1, "%s", why);
	ret = peer_compile(c, pp, err, sizeof(err));
	EXPECT_EQ(0, ret) {
		TH_LOG("compiling R's versions: %s", err);
		close(fd);
		return -1;
	}
	return fd;
}

/* R as loaded, for the tests after this one. */
static void peer_end(struct ctx *c, const struct peer_profs *pp, int fd)
{
	struct __test_metadata *_metadata = c->metadata;
	int ret;

	ret = aa_policy_replace(policy, pp->blob[PV_FULL]);
	EXPECT_EQ(0, ret) TH_LOG("restoring R: %s", strerror(-ret));
	close(fd);
}

static void check_peer(struct ctx *c, enum peer_change change)
{
	struct peer_profs pp;
	size_t i;
	int fd;

	fd = peer_begin(c, &pp);
	if (fd < 0)
		return;
	for (i = 0; i < ARRAY_SIZE(peer_rows); i++)
		peer_sub(c, &pp, fd, change, &peer_rows[i]);
	peer_end(c, &pp, fd);
}

static void check_peer_narrower(struct ctx *c)
{
	check_peer(c, CHANGE_NARROWER);
}

static void check_peer_wider(struct ctx *c)
{
	check_peer(c, CHANGE_WIDER);
}

static void check_peer_removed(struct ctx *c)
{
	check_peer(c, CHANGE_REMOVED);
}

/* R of a run: a socket of @type under @prof, on the abstract @name. */
struct peer_r {
	const char *prof;
	char name[NAME_MAX_LEN];
	int type;		/* SOCK_STREAM: it listens */
	int ready[2], done[2];
	struct outcome *out;
};

/* R: its socket bound (and listening) until the test is done. */
static void peer_r_main(void *arg)
{
	struct peer_r *p = arg;
	struct sockaddr_un addr;
	socklen_t len = unix_addr(&addr, p->name, true);
	int fd;

	if (confine(p->out, STEP_CONFINE, p->prof, false, false))
		return;
	fd = socket(AF_UNIX, p->type | SOCK_CLOEXEC, 0);
	if (failed(p->out, STEP_CREATE, fd) ||
	    failed(p->out, STEP_BIND, bind(fd, (struct sockaddr *)&addr, len)) ||
	    (p->type == SOCK_STREAM &&
	     failed(p->out, STEP_LISTEN, listen(fd, 4))))
		return;
	tell(p->ready[1]);
	if (go(p->out, STEP_DONE, p->done[0]))
		at(p->out, STEP_DONE);
}

/*
 * The label a connection reports for its peer (SO_PEERSEC, which D-Bus
 * and services that authorise a caller by its label read): R's name
 * while R runs under its profile, replaced or not ([replace] keeps the
 * name), and "unconfined" once R's profile is removed ([remove]), for a
 * connection made before the removal and one made after it.
 */

/* Connects to R's listener and reads the peer's label; false if not. */
static bool peersec_of(struct peer_r *p, int *fd, char *buf,
		       size_t len)
{
	struct sockaddr_un addr;
	socklen_t alen = unix_addr(&addr, p->name, true);
	socklen_t n = len - 1;

	if (*fd < 0) {
		*fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (*fd < 0 || connect(*fd, (struct sockaddr *)&addr, alen)) {
			snprintf(buf, len, "connect: %s", strerror(errno));
			return false;
		}
	}
	if (getsockopt(*fd, SOL_SOCKET, SO_PEERSEC, buf, &n)) {
		snprintf(buf, len, "SO_PEERSEC: %s", strerror(errno));
		return false;
	}
	buf[n] = '\0';
	return true;
}

static void check_peersec(struct ctx *c)
{
	struct __test_metadata *_metadata = c->metadata;
	struct peer_r p = { .type = SOCK_STREAM };
	struct peer_profs pp;
	char want[NAME_MAX_LEN + 16], got[256];
	int afd, before = -1, after = -1, ret;
	pid_t pid;

	afd = peer_begin(c, &pp);
	if (afd < 0)
		return;
	c->subs++;
	p.prof = pp.r;
	p.out = shared_alloc(sizeof(*p.out));
	ASSERT_NE(NULL, p.out);
	run_name(p.name, sizeof(p.name), "peersec");
	ASSERT_EQ(0, pipe2(p.ready, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(p.done, O_CLOEXEC));
	ASSERT_EQ(0, peer_become(&pp, PV_FULL));
	pid = spawn(peer_r_main, &p);
	ASSERT_LT(0, pid);
	ASSERT_TRUE(go(p.out, STEP_BIND, p.ready[0])) {
		reap(p.out, pid);
	}
	snprintf(want, sizeof(want), "%s (enforce)", pp.r);
	EXPECT_TRUE(peersec_of(&p, &before, got, sizeof(got)) &&
		    !strcmp(want, got)) {
		TH_LOG("R under its profile [label]: SO_PEERSEC \"%s\", not \"%s\"",
		       got, want);
	}
	ret = peer_become(&pp, PV_NO_ACCEPT);
	EXPECT_EQ(0, ret);
	EXPECT_TRUE(peersec_of(&p, &before, got, sizeof(got)) &&
		    !strcmp(want, got)) {
		TH_LOG("R's profile replaced [replace]: SO_PEERSEC \"%s\", not \"%s\"",
		       got, want);
	}
	ret = peer_become(&pp, PV_COUNT);
	EXPECT_EQ(0, ret);
	EXPECT_TRUE(peersec_of(&p, &before, got, sizeof(got)) &&
		    !strcmp("unconfined", got)) {
		TH_LOG("R removed, a connection from before [remove]: SO_PEERSEC \"%s\"",
		       got);
	}
	EXPECT_TRUE(peersec_of(&p, &after, got, sizeof(got)) &&
		    !strcmp("unconfined", got)) {
		TH_LOG("R removed, a connection made after [remove]: SO_PEERSEC \"%s\"",
		       got);
	}
	tell(p.done[1]);
	reap(p.out, pid);
	expect_outcome(_metadata, "SO_PEERSEC", "R",
		       (struct outcome){ .step = STEP_DONE }, p.out);
	close(before);
	close(after);
	close(p.ready[0]);
	close(p.ready[1]);
	close(p.done[0]);
	close(p.done[1]);
	shared_free(p.out, sizeof(*p.out));
	peer_end(c, &pp, afd);
}

/*
 * The sender's side ([peer], NEW ABI): S may send only to peer=(label=R).
 * A replacement keeps R's name, so S's rule still matches R's socket
 * ([replace]); once R's profile is removed R runs unconfined ([remove])
 * and the rule no longer matches it.
 */
struct peer_rule_run {
	struct peer_r r;	/* a dgram socket */
	const char *s_prof;
	int go_s[2], sent[2];
	struct outcome *s, *op;	/* op: one per R's version */
};

static void peer_rule_s(void *arg)
{
	struct peer_rule_run *p = arg;
	char msg[MSG_LEN] = "rule";
	struct sockaddr_un addr;
	socklen_t len = unix_addr(&addr, p->r.name, true);
	int i, fd;

	if (confine(p->s, STEP_CONFINE, p->s_prof, false, false))
		return;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (failed(p->s, STEP_CREATE, fd))
		return;
	for (i = 0; i < 3; i++) {
		if (!go(p->s, STEP_HANDOFF, p->go_s[0]))
			return;
		if (!failed(&p->op[i], STEP_SENDTO,
			    sendto(fd, msg, MSG_LEN, MSG_DONTWAIT,
				   (struct sockaddr *)&addr, len)))
			at(&p->op[i], STEP_DONE);
		tell(p->sent[1]);
	}
	at(p->s, STEP_DONE);
}

static void check_peer_rule(struct ctx *c)
{
	static const char *const when[] = {
		"R under its profile", "R's profile replaced",
		"R's profile removed",
	};
	struct __test_metadata *_metadata = c->metadata;
	const struct outcome ok = { .step = STEP_DONE };
	const struct outcome no = { .step = STEP_SENDTO, .err = EACCES };
	struct prof s = { .name = "peer_rule_s" };
	struct peer_rule_run p = { .r.type = SOCK_DGRAM };
	struct peer_profs pp;
	struct outcome self = ok;
	char desc[128];
	pid_t pid_r, pid_s;
	int afd, i;

	if (!peer_names(c, &pp))
		return;
	prof_base(&s, aa_policy_dir(policy), "rw");
	rules(&s, "  unix (create, bind, getattr, getopt, setopt, shutdown),\n"
		  "  unix (send) peer=(label=%s),\n", pp.r);
	p.s_prof = registered(c, &s);
	if (c->collect) {
		if (!p.s_prof)
			ksft_exit_fail_msg("cannot register more profiles\n");
		return;
	}
	afd = peer_begin(c, &pp);
	if (afd < 0)
		return;
	c->subs++;
	p.r.prof = pp.r;
	p.r.out = shared_alloc(5 * sizeof(*p.r.out));
	ASSERT_NE(NULL, p.r.out);
	p.s = p.r.out + 1;
	p.op = p.r.out + 2;
	run_name(p.r.name, sizeof(p.r.name), "peer_rule");
	ASSERT_EQ(0, pipe2(p.r.ready, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(p.r.done, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(p.go_s, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(p.sent, O_CLOEXEC));
	ASSERT_EQ(0, peer_become(&pp, PV_FULL));
	pid_r = spawn(peer_r_main, &p.r);
	pid_s = spawn(peer_rule_s, &p);
	for (i = 0; i < 3 && pid_r > 0 && pid_s > 0; i++) {
		if ((!i && !go(&self, STEP_BIND, p.r.ready[0])) ||
		    (i && peer_become(&pp, i == 1 ? PV_NO_ACCEPT : PV_COUNT)))
			break;
		tell(p.go_s[1]);
		if (!go(&self, STEP_SENDTO, p.sent[0]))
			break;
		snprintf(desc, sizeof(desc), "%s [peer] %s", when[i],
			 i < 2 ? "[replace]" : "[remove]");
		expect_outcome(_metadata, desc, "S, sending by peer=(label=R)",
			       i < 2 ? ok : no, &p.op[i]);
	}
	tell(p.r.done[1]);
	reap(p.s, pid_s);
	reap(p.r.out, pid_r);
	expect_outcome(_metadata, "the run", "the test", ok, &self);
	expect_outcome(_metadata, "the run", "R", ok, p.r.out);
	expect_outcome(_metadata, "the run", "S", ok, p.s);
	for (i = 0; i < 2; i++) {
		close(p.r.ready[i]);
		close(p.r.done[i]);
		close(p.go_s[i]);
		close(p.sent[i]);
	}
	shared_free(p.r.out, 5 * sizeof(*p.r.out));
	peer_end(c, &pp, afd);
}

static void run_peer(struct __test_metadata *_metadata, enum aa_abi abi,
		     check_fn *fn)
{
	if (env.enabled && !env.have_v9_unix)
		SKIP(return, "%s",
		     "kernel without AppArmor network_v9/af_unix (6.17+): a peer's label is not asked");
	run_abi(_metadata, abi, fn);
}

TEST(old_abi_peer_replaced_by_narrower)
{
	run_peer(_metadata, AA_ABI_OLD, check_peer_narrower);
}

TEST(new_abi_peer_replaced_by_narrower)
{
	run_peer(_metadata, AA_ABI_NEW, check_peer_narrower);
}

TEST(old_abi_peer_replaced_by_wider)
{
	run_peer(_metadata, AA_ABI_OLD, check_peer_wider);
}

TEST(new_abi_peer_replaced_by_wider)
{
	run_peer(_metadata, AA_ABI_NEW, check_peer_wider);
}

TEST(old_abi_peer_removed)
{
	run_peer(_metadata, AA_ABI_OLD, check_peer_removed);
}

TEST(new_abi_peer_removed)
{
	run_peer(_metadata, AA_ABI_NEW, check_peer_removed);
}

TEST(old_abi_peer_label_after_replacement)
{
	run_peer(_metadata, AA_ABI_OLD, check_peersec);
}

TEST(new_abi_peer_label_after_replacement)
{
	run_peer(_metadata, AA_ABI_NEW, check_peersec);
}

TEST(new_abi_peer_rule_after_replacement)
{
	run_peer(_metadata, AA_ABI_NEW, check_peer_rule);
}

/* One check registers R and S; the others find them. */
static check_fn *const peer_checks_of_abi[] = {
	check_peer_narrower,
};

/* The NEW ABI's peer=(label=) rule names R. */
static check_fn *const peer_checks_of_new_abi[] = {
	check_peer_narrower,
	check_peer_rule,
};

/* What the peer area registers and runs, by ABI. */
static const struct checks peer_checks[AA_ABI_COUNT] = {
	[AA_ABI_OLD] = { peer_checks_of_abi, ARRAY_SIZE(peer_checks_of_abi) },
	[AA_ABI_NEW] = { peer_checks_of_new_abi,
			 ARRAY_SIZE(peer_checks_of_new_abi) },
};
