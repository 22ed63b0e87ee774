// SPDX-License-Identifier: GPL-2.0
/*
 * AppArmor AF_UNIX mediation under the OLD (abi/4.0, coarse "network unix")
 * and the NEW (abi/5.0, fine-grained "unix") policy ABI.
 *
 * Every check runs a full conversation (create, options, bind, listen,
 * connect, accept, names, three send flavours, receive, shutdown) between a
 * server and a client with their own profiles, and asserts where each side
 * stops: the operation that fails and its errno on the side mediation
 * stops, and where the other side then has to give up.
 *
 * All profiles are generated up front and compiled in one apparmor_parser
 * run: compiling is what makes policy tests slow.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "audit_log.h"
#include "common.h"
#include "policy.h"
#include "unix_handoff.h"
#include "unix_scenario.h"

#define AA_PROFILE_PREFIX "aa_unix_mediation"
#define RULES_MAX 1024
#define NAME_MAX_LEN 108

static struct aa_env env;
static struct aa_policy *policy;
/* Why no run directory could be made; empty when there is one. */
static char no_policy[256];
/* How many characters the kernel's autobind names have; 0 if unknown. */
static int autobind_len;
static char no_autobind[128];

/*
 * Policy is compiled by the first test that needs it, in its own process:
 * the outcome is shared with the tests that follow.
 */
static struct load_state {
	bool tried;
	bool loaded;
	char error[4096];
} *load;

/*
 * A profile: rule text built with checked lengths, and a name when other
 * rules refer to it (NULL: the registry numbers it).
 */
struct prof {
	const char *name;
	char text[RULES_MAX];
	size_t len;
	bool overflow;
};

static void vadd(struct prof *p, const char *fmt, va_list ap)
{
	size_t room = sizeof(p->text) - p->len;
	int n = vsnprintf(p->text + p->len, room, fmt, ap);

	if (n < 0 || (size_t)n >= room)
		p->overflow = true;
	else
		p->len += n;
}

static __printf(2, 3) void add(struct prof *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vadd(p, fmt, ap);
	va_end(ap);
}

/*
 * Starts @p with the rules every generated profile carries so that the
 * test itself can run: the harness kills timed-out tests, libapparmor
 * reads the label from /proc, pathname sockets live in the run directory.
 */
static __printf(2, 3) void rules(struct prof *p, const char *fmt, ...)
{
	const char *dir = aa_policy_dir(policy);
	va_list ap;

	p->len = 0;
	p->overflow = false;
	add(p, "  signal (receive) peer=unconfined,\n"
	    "  /proc/*/attr/{apparmor/,}current r,\n  %s/ r,\n  %s/* rw,\n",
	    dir, dir);
	va_start(ap, fmt);
	vadd(p, fmt, ap);
	va_end(ap);
}

static const char *const all_unix_perms[] = {
	"create", "bind", "listen", "accept", "connect", "send", "receive",
	"getattr", "shutdown", "getopt", "setopt",
};

/* "create, bind, ..." without @drop (may be NULL). */
static void perm_list(struct prof *p, const char *drop)
{
	const char *sep = "";
	size_t i;

	for (i = 0; i < ARRAY_SIZE(all_unix_perms); i++) {
		if (drop && !strcmp(drop, all_unix_perms[i]))
			continue;
		add(p, "%s%s", sep, all_unix_perms[i]);
		sep = ", ";
	}
}

/* Every unix permission but @drop, in the rule syntax of @abi. */
static void all_perms_but(struct prof *p, enum aa_abi abi, const char *drop)
{
	rules(p, "  %s (", abi == AA_ABI_NEW ? "unix" : "network");
	perm_list(p, drop);
	add(p, ")%s,\n", abi == AA_ABI_NEW ? "" : " unix");
}

/* Every unix permission but @perm (NULL: all), as @abi writes it. */
static void lacking(struct prof *p, enum aa_abi abi, const char *perm)
{
	if (abi == AA_ABI_NEW)
		all_perms_but(p, abi, perm);
	else if (perm)
		rules(p, "  network unix,\n  deny network (%s) unix,\n", perm);
	else
		rules(p, "  network unix,\n");
}

/*
 * What a sub-check expects: every step on both sides succeeds
 * (who == SIDE_COUNT), or @who stops at @step with @err.  Where the other
 * side then stops follows from the conversation (scenario_other_side()).
 */
struct expect {
	enum side who;
	enum step step;
	int err;
};

static const struct expect all_ok = { SIDE_COUNT, STEP_DONE, 0 };

static struct expect denied(enum side who, enum step step)
{
	return (struct expect){ who, step, EACCES };
}

struct variant {
	enum aa_abi abi;
	enum sock_kind kind;
	int type;
	enum handoff_how how;	/* for the handoff checks */
	bool uring;		/* their io_uring operations */
};

static bool conn_type(int type)
{
	return type != SOCK_DGRAM;
}

/*
 * Where a conversation stops when one side's profile lacks one unix
 * permission, by ABI, socket kind, the side missing it and the socket
 * type.  The first row matching the permission, kind and side decides; no
 * row means nothing is denied.
 */
#define ANY SIDE_COUNT
#define SRV SERVER
#define CLI CLIENT
#define P (1 << KIND_PATHNAME)
#define N ((1 << KIND_ABSTRACT) | (1 << KIND_AUTOBIND))
#define U (1 << KIND_UNNAMED)
#define OK { SIDE_COUNT, STEP_DONE }
#define OWN(s) { ANY, STEP_##s }	/* the side missing it stops */
#define S(s) { SERVER, STEP_##s }
#define C(s) { CLIENT, STEP_##s }

struct stop_at {
	enum side who;
	enum step step;
};

struct missing_row {
	const char *perm;
	unsigned int kinds;
	enum side side;
	struct stop_at conn;	/* stream and seqpacket */
	struct stop_at dgram;
};

/* clang-format off */
static const struct missing_row new_abi_missing[] = {
	{ "create",   P | N | U, ANY, OWN(CREATE),      OWN(CREATE) },
	{ "setopt",   P | N | U, ANY, OWN(SETOPT),      OWN(SETOPT) },
	{ "getopt",   P | N | U, ANY, OWN(GETOPT),      OWN(GETOPT) },
	/* A socket bound to a path is mediated by file rules instead. */
	{ "shutdown", P,         SRV, OK,               OK },
	{ "shutdown", P | N | U, ANY, OWN(SHUTDOWN),    OWN(SHUTDOWN) },
	{ "getattr",  U,         ANY, OWN(GETSOCKNAME), OWN(GETSOCKNAME) },
	{ "getattr",  P,         SRV, OK,               OK },
	{ "getattr",  N,         SRV, S(GETSOCKNAME),   S(GETSOCKNAME) },
	/* The client's own socket is never bound: unix rules apply. */
	{ "getattr",  P | N,     CLI, C(GETPEERNAME),   C(GETPEERNAME) },
	{ "bind",     N,         SRV, S(BIND),          S(BIND) },
	{ "listen",   N,         SRV, S(LISTEN),        OK },
	/* The listener's accept is checked at the client's connect too. */
	{ "accept",   N,         SRV, C(CONNECT),       OK },
	{ "connect",  N,         CLI, C(CONNECT),       OK },
	/* Only datagram sends go through unix_may_send(). */
	{ "send",     U,         ANY, OK,               OWN(SENDTO) },
	/* The listener's send and receive are checked at the connect. */
	{ "send",     N,         SRV, C(CONNECT),       OK },
	{ "send",     N,         CLI, C(CONNECT),       C(SENDTO) },
	{ "receive",  U,         ANY, OK,               OWN(SENDTO) },
	/* The receiver's receive is checked at the sender's send. */
	{ "receive",  N,         SRV, C(CONNECT),       C(SENDTO) },
	{ "receive",  N,         CLI, C(CONNECT),       OK },
	{ }
};

/* 6.17+: one coarse check per operation, paths or not. */
static const struct missing_row old_abi_missing[] = {
	{ "create",   P | N | U, ANY, OWN(CREATE),      OWN(CREATE) },
	{ "setopt",   P | N | U, ANY, OWN(SETOPT),      OWN(SETOPT) },
	{ "getopt",   P | N | U, ANY, OWN(GETOPT),      OWN(GETOPT) },
	{ "shutdown", P | N | U, ANY, OWN(SHUTDOWN),    OWN(SHUTDOWN) },
	{ "getattr",  U,         ANY, OWN(GETSOCKNAME), OWN(GETSOCKNAME) },
	{ "getattr",  P | N,     SRV, S(GETSOCKNAME),   S(GETSOCKNAME) },
	{ "getattr",  P | N,     CLI, C(GETPEERNAME),   C(GETPEERNAME) },
	{ "bind",     P | N,     SRV, S(BIND),          S(BIND) },
	{ "listen",   P | N,     SRV, S(LISTEN),        OK },
	{ "accept",   P,         SRV, S(ACCEPT),        OK },
	{ "accept",   N,         SRV, C(CONNECT),       OK },
	/* The connecting side asks for connect, send and receive at once. */
	{ "connect",  P | N,     CLI, C(CONNECT),       OK },
	{ "send",     U,         ANY, OK,               OWN(SENDTO) },
	/* A listener with a path is not checked at connect. */
	{ "send",     N,         SRV, C(CONNECT),       OK },
	{ "send",     P | N,     CLI, C(CONNECT),       C(SENDTO) },
	{ "receive",  U,         ANY, OK,               OWN(SENDTO) },
	{ "receive",  P,         SRV, OK,               C(SENDTO) },
	{ "receive",  N,         SRV, C(CONNECT),       C(SENDTO) },
	{ "receive",  P | N,     CLI, C(CONNECT),       OK },
	{ }
};

/*
 * Before 6.17 (no network_v9/af_unix) each message was checked in
 * sendmsg() and recvmsg() against the caller's own rule, and a datagram
 * connect() needed "connect"; connect() did not consult the listener.  These
 * permissions are decided by this table alone then; the others as in
 * old_abi_missing.
 */
static const struct missing_row old_abi_missing_pre_v9[] = {
	{ "accept",   P | N,     SRV, S(ACCEPT),        OK },
	{ "connect",  P | N,     CLI, C(CONNECT),       C(CONNECT) },
	{ "connect",  P | N | U, ANY, OK,               OK },
	{ "send",     P | N | U, CLI, C(SENDTO),        C(SENDTO) },
	{ "send",     P | N,     SRV, S(REPLY),         OK },
	{ "receive",  U,         ANY, OWN(RECV),        OWN(RECV) },
	{ "receive",  P | N,     SRV, S(RECV),          S(RECV) },
	{ "receive",  P | N,     CLI, C(RECV_REPLY),    OK },
	{ }
};
/* clang-format on */
#undef P
#undef N
#undef U

static const struct missing_row *find_row(const struct missing_row *t,
					  const struct variant *v,
					  enum side who, const char *perm,
					  bool *listed)
{
	for (; t->perm; t++) {
		if (strcmp(t->perm, perm))
			continue;
		*listed = true;
		if ((t->kinds & (1u << v->kind)) &&
		    (t->side == ANY || t->side == who))
			return t;
	}
	return NULL;
}

static struct expect missing_perm(const struct variant *v, enum side who,
				  const char *perm)
{
	const struct missing_row *row = NULL;
	const struct stop_at *at;
	bool listed = false;

	if (v->abi == AA_ABI_NEW)
		row = find_row(new_abi_missing, v, who, perm, &listed);
	else if (!env.have_v9_unix)
		row = find_row(old_abi_missing_pre_v9, v, who, perm, &listed);
	if (v->abi == AA_ABI_OLD && !listed)
		row = find_row(old_abi_missing, v, who, perm, &listed);
	if (!row)
		return all_ok;
	at = conn_type(v->type) ? &row->conn : &row->dgram;
	if (at->step == STEP_DONE)
		return all_ok;
	return denied(at->who == ANY ? who : at->who, at->step);
}

/*
 * A check is a function that lists sub-checks.  It is called once at start
 * to register the profiles, then by its test to run and assert them.
 */
struct ctx {
	const struct variant *v;
	bool collect;
	struct __test_metadata *metadata;
	int subs;
	bool complain[SIDE_COUNT];	/* the side's profile is in complain mode */
	const char *client_path;	/* where the client binds, if anywhere */
	bool by_stack;		/* stacked labels by aa_stack_profile() */
};

typedef void check_fn(struct ctx *c);

static const char *side_name(enum side s)
{
	return s == SERVER ? "server" : "client";
}

/* A name unique to this run: abstract sockets are shared by all runs. */
static void run_name(char *buf, size_t len, const char *what)
{
	if (aa_policy_name(policy, what, buf, len))
		ksft_exit_fail_msg("name too long: %s\n", what);
}

static void sock_name(char *buf, size_t len)
{
	run_name(buf, len, "sock");
}

static const char *registered(struct ctx *c, const struct prof *p)
{
	if (!p)
		return NULL;
	if (p->overflow)
		ksft_exit_fail_msg("rules longer than %d bytes: %.60s...\n",
				   RULES_MAX, p->text);
	if (c->collect)
		return aa_policy_add(policy, c->v->abi, p->name, p->text);
	return aa_policy_find(policy, c->v->abi, p->name, p->text);
}

static void expect_outcome(struct __test_metadata *_metadata, const char *desc,
			   enum side s, struct outcome want,
			   const struct outcome *got)
{
	char w[128], g[128];

	EXPECT_TRUE(want.step == got->step && want.err == got->err &&
		    want.fault == got->fault) {
		TH_LOG("%s: %s expected to stop at %s, got %s", desc,
		       side_name(s), outcome_str(&want, w, sizeof(w)),
		       outcome_str(got, g, sizeof(g)));
	}
}

/*
 * Runs one conversation between tasks labelled @srv and @cli (NULL:
 * unconfined); in collect mode, nothing.
 */
static void sub_labels(struct ctx *c, const char *desc, const char *srv,
		       const char *cli, struct expect exp)
{
	struct __test_metadata *_metadata = c->metadata;
	const struct variant *v = c->v;
	struct outcome res[SIDE_COUNT], want[SIDE_COUNT];
	char name[NAME_MAX_LEN], path[PATH_MAX];
	struct scenario sc = {
		.kind = v->kind,
		.type = v->type,
		.dir = aa_policy_dir(policy),
		.name = name,
		.profile = { srv, cli },
		/* Before 6.17, AppArmor did not label unix socket peers. */
		.peer_labels = env.have_v9_unix,
		.complain = { c->complain[SERVER], c->complain[CLIENT] },
		.client_path = c->client_path,
		.by_stack = { c->by_stack && srv && strstr(srv, "//&"),
			      c->by_stack && cli && strstr(cli, "//&") },
	};
	enum side s;
	int ret;

	if (c->collect)
		return;
	c->subs++;
	sock_name(name, sizeof(name));

	ret = scenario_run(&sc, res);
	snprintf(path, sizeof(path), "%s/%s", sc.dir, name);
	unlink(path);
	if (sc.client_path)
		unlink(sc.client_path);
	ASSERT_EQ(0, ret) {
		TH_LOG("%s: the conversation could not be set up: %s", desc,
		       strerror(-ret));
	}

	for (s = SERVER; s < SIDE_COUNT; s++)
		want[s] = (struct outcome){ .step = STEP_DONE };
	if (exp.who != SIDE_COUNT) {
		want[exp.who] = (struct outcome){ .step = exp.step,
						  .err = exp.err };
		if (v->kind != KIND_UNNAMED)
			want[exp.who == SERVER ? CLIENT : SERVER] =
				scenario_other_side(&sc, exp.who, exp.step);
	}
	for (s = SERVER; s < SIDE_COUNT; s++)
		if (s != SERVER || v->kind != KIND_UNNAMED)
			expect_outcome(_metadata, desc, s, want[s], &res[s]);
}

/* Runs one conversation; @srv or @cli NULL runs that side unconfined. */
static void sub(struct ctx *c, const char *desc, const struct prof *srv,
		const struct prof *cli, struct expect exp)
{
	struct __test_metadata *_metadata = c->metadata;
	const char *label[SIDE_COUNT] = { registered(c, srv), registered(c, cli) };

	if (c->collect) {
		if ((srv && !label[SERVER]) || (cli && !label[CLIENT]))
			ksft_exit_fail_msg("cannot register more profiles\n");
		return;
	}
	ASSERT_FALSE((srv && !label[SERVER]) || (cli && !label[CLIENT]));
	sub_labels(c, desc, label[SERVER], label[CLIENT], exp);
}

/* Both sides allowed everything, and the labels are what we loaded. */
static void check_allow_all(struct ctx *c)
{
	struct prof r = { };

	rules(&r, "  %s,\n", c->v->abi == AA_ABI_NEW ? "unix" : "network unix");
	sub(c, "allow all", &r, &r, all_ok);
}

/* The first side to try: a socketpair has only one. */
static enum side first_side(const struct variant *v)
{
	return v->kind == KIND_UNNAMED ? CLIENT : SERVER;
}

/* Each permission removed in turn from one side's explicit list. */
static void check_each_permission(struct ctx *c)
{
	const struct variant *v = c->v;
	struct prof full = { }, less = { };
	char desc[64];
	enum side who;
	size_t i;

	all_perms_but(&full, v->abi, NULL);
	sub(c, "all permissions listed", &full, &full, all_ok);

	for (who = first_side(v); who < SIDE_COUNT; who++) {
		for (i = 0; i < ARRAY_SIZE(all_unix_perms); i++) {
			const char *perm = all_unix_perms[i];

			all_perms_but(&less, v->abi, perm);
			snprintf(desc, sizeof(desc), "%s without %s",
				 side_name(who), perm);
			sub(c, desc, who == SERVER ? &less : &full,
			    who == CLIENT ? &less : &full,
			    missing_perm(v, who, perm));
		}
	}
}

/*
 * The peer permissions removed in turn from one side while the other side
 * is unconfined: the confined side's profile still decides, exactly as
 * when its peer had every permission.  A shortcut for unconfined labels in
 * the peer checks (as in the fix proposed for the unconfined send cost of
 * 6456ccbd2ff7) must not skip it.
 */
static void check_one_side_unconfined(struct ctx *c)
{
	static const char * const peer_perms[] = {
		"connect", "accept", "send", "receive",
	};
	const struct variant *v = c->v;
	struct prof less = { };
	char desc[80];
	enum side who;
	size_t i;

	for (who = first_side(v); who < SIDE_COUNT; who++) {
		for (i = 0; i < ARRAY_SIZE(peer_perms); i++) {
			const char *perm = peer_perms[i];

			lacking(&less, v->abi, perm);
			snprintf(desc, sizeof(desc), "%s without %s, %s unconfined",
				 side_name(who), perm,
				 side_name(who == SERVER ? CLIENT : SERVER));
			sub(c, desc, who == SERVER ? &less : NULL,
			    who == CLIENT ? &less : NULL,
			    missing_perm(v, who, perm));
		}
	}
}

static const char *other_type(int type)
{
	return type == SOCK_STREAM ? "dgram" : "stream";
}

/* type= (NEW) or the coarse rule's type (OLD): match, then mismatch. */
static void check_rule_type(struct ctx *c)
{
	const struct variant *v = c->v;
	struct prof match = { }, other = { };
	const char *fmt = v->abi == AA_ABI_NEW ? "  unix type=%s,\n" :
						 "  network unix %s,\n";

	rules(&match, fmt, type_name(v->type));
	rules(&other, fmt, other_type(v->type));
	sub(c, "type matches", &match, &match, all_ok);
	if (v->kind != KIND_UNNAMED)
		sub(c, "server type differs", &other, &match,
		    denied(SERVER, STEP_CREATE));
	sub(c, "client type differs", &match, &other, denied(CLIENT, STEP_CREATE));
}

/*
 * The address a server of this kind binds, as an addr= value.  Autobind
 * names are chosen by the kernel: any name as long as the one it gave a
 * socket at start.
 */
static void rule_addr(const struct variant *v, char *buf, size_t len)
{
	char name[NAME_MAX_LEN];
	int i;

	sock_name(name, sizeof(name));
	switch (v->kind) {
	case KIND_PATHNAME:
		snprintf(buf, len, "%s/%s", aa_policy_dir(policy), name);
		break;
	case KIND_ABSTRACT:
		snprintf(buf, len, "@%s", name);
		break;
	case KIND_UNNAMED:
		snprintf(buf, len, "none");
		break;
	default:
		buf[0] = '@';
		for (i = 0; i < autobind_len && i + 2 < (int)len; i++)
			buf[i + 1] = '?';
		buf[i + 1] = '\0';
	}
}

/* Without a known autobind name length there is no addr= to write. */
static bool skip_autobind(struct ctx *c)
{
	struct __test_metadata *_metadata = c->metadata;

	if (c->v->kind != KIND_AUTOBIND || autobind_len)
		return false;
	if (!c->collect)
		SKIP(return true, "%s", no_autobind);
	return true;
}

/*
 * addr=: the server's own address, then another one.  apparmor_parser
 * takes no path as addr=: a socket bound to a path is mediated by file
 * rules, whatever its unix rules' addr= says.
 */
static void check_rule_addr(struct ctx *c)
{
	const struct variant *v = c->v;
	struct prof ok = { }, bad = { }, full = { }, fs_deny = { };
	char addr[PATH_MAX], other[NAME_MAX_LEN];
	const char *local;

	if (skip_autobind(c))
		return;
	rule_addr(v, addr, sizeof(addr));
	run_name(other, sizeof(other), "other");
	/* An autobind name does not exist yet when bind() is checked. */
	local = v->kind == KIND_AUTOBIND ? "create, setopt, getopt, bind" :
					   "create, setopt, getopt";
	rules(&full, "  unix,\n");
	rules(&ok, "  unix (%s),\n  unix addr=%s,\n", local, addr);
	rules(&bad, "  unix (%s),\n  unix addr=@%s,\n", local, other);
	switch (v->kind) {
	case KIND_UNNAMED:
		sub(c, "addr matches", &full, &ok, all_ok);
		sub(c, "addr differs", &full, &bad,
		    denied(CLIENT, STEP_GETSOCKNAME));
		break;
	case KIND_PATHNAME:
		rules(&fs_deny, "  unix (%s),\n  unix addr=@%s,\n  deny %s w,\n",
		      local, other, addr);
		sub(c, "addr differs, file rules allow the path", &bad, &full,
		    all_ok);
		sub(c, "addr differs, a file rule denies the path", &fs_deny,
		    &full, denied(SERVER, STEP_BIND));
		break;
	case KIND_AUTOBIND:
		sub(c, "addr matches", &ok, &full, all_ok);
		sub(c, "addr differs", &bad, &full,
		    denied(SERVER, conn_type(v->type) ? STEP_LISTEN :
							STEP_GETSOCKNAME));
		break;
	default:
		sub(c, "addr matches", &ok, &full, all_ok);
		sub(c, "addr differs", &bad, &full, denied(SERVER, STEP_BIND));
	}
}

/*
 * Where a client whose peer rules do not match the server is stopped: a
 * server bound to a path is reached through file rules, and a socketpair
 * is connected before any peer rule is consulted.
 */
static struct expect peer_mismatch(const struct variant *v)
{
	if (v->kind == KIND_PATHNAME)
		return all_ok;
	if (conn_type(v->type))
		return v->kind == KIND_UNNAMED ? all_ok :
		       denied(CLIENT, STEP_CONNECT);
	return denied(CLIENT, STEP_SENDTO);
}

static const char *const peer_local =
	"  unix (create, setopt, getopt, getattr, shutdown),\n";

/*
 * peer=(label=...): the server's exact profile, then the client's own, so
 * that a kernel matching the subject instead of the peer is caught.  A
 * socketpair's peer is the process itself: there the two swap.
 */
static void check_rule_peer_label(struct ctx *c)
{
	struct prof srv = { .name = "peer_server" }, to_server = { };
	struct prof to_self = { .name = "peer_self" };
	char server[NAME_MAX_LEN], self[NAME_MAX_LEN];
	bool pair = c->v->kind == KIND_UNNAMED;

	run_name(server, sizeof(server), srv.name);
	run_name(self, sizeof(self), to_self.name);
	rules(&srv, "  unix,\n");
	rules(&to_server, "%s  unix (connect, send, receive) peer=(label=%s),\n",
	      peer_local, server);
	rules(&to_self, "%s  unix (connect, send, receive) peer=(label=%s),\n",
	      peer_local, self);
	sub(c, "peer label matches", &srv, pair ? &to_self : &to_server, all_ok);
	sub(c, "peer label differs", &srv, pair ? &to_server : &to_self,
	    peer_mismatch(c->v));
}

/*
 * peer=(addr=...): the server's address, then another one.  A server bound
 * to a path is reached through file rules on the path instead.
 */
static void check_rule_peer_addr(struct ctx *c)
{
	struct prof full = { }, ok = { }, ko = { }, fs_deny = { };
	char addr[PATH_MAX], other[NAME_MAX_LEN];
	bool conn = conn_type(c->v->type);

	if (skip_autobind(c))
		return;
	rule_addr(c->v, addr, sizeof(addr));
	run_name(other, sizeof(other), "other");
	rules(&full, "  unix,\n");
	rules(&ok, "%s  unix (connect, send, receive) peer=(addr=%s),\n",
	      peer_local, addr);
	rules(&ko, "%s  unix (connect, send, receive) peer=(addr=@%s),\n",
	      peer_local, other);
	if (c->v->kind != KIND_PATHNAME) {
		sub(c, "peer addr matches", &full, &ok, all_ok);
		sub(c, "peer addr differs", &full, &ko, peer_mismatch(c->v));
		return;
	}
	rules(&fs_deny, "%s  unix (connect, send, receive) peer=(addr=@%s),\n"
	      "  deny %s w,\n", peer_local, other, addr);
	sub(c, "peer addr differs, file rules allow the path", &full, &ko,
	    all_ok);
	sub(c, "peer addr differs, a file rule denies the path", &full,
	    &fs_deny, denied(CLIENT, conn ? STEP_CONNECT : STEP_SENDTO));
}

/*
 * The label "A//&B" of profiles @a and @b, registered; NULL if one is not.
 * The kernel orders a stack's profiles by name, as we write it here.
 */
static const char *stack_of(struct ctx *c, const struct prof *a,
			    const struct prof *b, char *buf, size_t len)
{
	const char *na = registered(c, a), *nb = registered(c, b);

	if (!na || !nb)
		return NULL;
	if (strcmp(na, nb) > 0)
		snprintf(buf, len, "%s//&%s", nb, na);
	else
		snprintf(buf, len, "%s//&%s", na, nb);
	return buf;
}

/*
 * Stacked labels: every profile of the stack must allow, so a stack with
 * one profile lacking a permission stops where that profile alone would,
 * whether it comes first or last in the stack.  The label is reached by
 * change_profile, and for connect and send also by aa_stack_profile()
 * onto the unconfined task (the label is then A//&B//&unconfined).
 */
/* Each side in turn labelled @stack, the other @single. */
static void stacked_sides(struct ctx *c, const char *perm, const char *stack,
			  const char *single, bool first, bool by_stack)
{
	char desc[128];
	enum side who;

	for (who = first_side(c->v); who < SIDE_COUNT; who++) {
		snprintf(desc, sizeof(desc),
			 "%s stacked with a profile without %s (%s%s)",
			 side_name(who), perm, first ? "first" : "last",
			 by_stack ? ", by aa_stack_profile" : "");
		c->by_stack = by_stack;
		sub_labels(c, desc, who == SERVER ? stack : single,
			   who == CLIENT ? stack : single,
			   missing_perm(c->v, who, perm));
		c->by_stack = false;
	}
}

static void check_stacked(struct ctx *c)
{
	static const char *const perms[] = { "create", "connect", "send",
					     "receive" };
	const struct variant *v = c->v;
	const char *abi = v->abi == AA_ABI_NEW ? "new" : "old";
	struct prof full = { }, less = { };
	char fname[32], lname[32], label[2 * NAME_MAX_LEN + 4];
	const char *stack, *single;
	size_t i;
	int first;

	/* Names are global: one set per ABI. */
	snprintf(fname, sizeof(fname), "stack2_full_%s", abi);
	full.name = fname;
	lacking(&full, v->abi, NULL);
	single = registered(c, &full);
	for (i = 0; i < ARRAY_SIZE(perms); i++) {
		for (first = 1; first >= 0; first--) {
			snprintf(lname, sizeof(lname), "stack%d_no_%s_%s",
				 first ? 1 : 3, perms[i], abi);
			less.name = lname;
			lacking(&less, v->abi, perms[i]);
			stack = stack_of(c, &less, &full, label, sizeof(label));
			if (!stack || !single)
				ksft_exit_fail_msg("cannot register more profiles\n");
			stacked_sides(c, perms[i], stack, single, first, false);
			/* The same label built by aa_stack_profile(). */
			if (i == 1 || i == 2)
				stacked_sides(c, perms[i], stack, single, first,
					      true);
		}
	}
}

/*
 * peer=(label=...) against a stacked server: each profile of the peer's
 * stack is matched on its own, so a rule naming only one of them does
 * not match the stack, and one naming both does.
 */
static void check_stacked_peer(struct ctx *c)
{
	struct prof a = { .name = "speer_a" }, b = { .name = "speer_b" };
	struct prof one = { }, both = { };
	const char *to_both, *to_one;
	char label[2 * NAME_MAX_LEN + 4], na[NAME_MAX_LEN], glob[NAME_MAX_LEN];
	const char *stack;

	run_name(na, sizeof(na), a.name);
	run_name(glob, sizeof(glob), "speer_*");
	rules(&a, "  unix,\n");
	rules(&b, "  unix,\n");
	rules(&one, "%s  unix (connect, send, receive) peer=(label=%s),\n",
	      peer_local, na);
	rules(&both, "%s  unix (connect, send, receive) peer=(label=%s),\n",
	      peer_local, glob);
	stack = stack_of(c, &a, &b, label, sizeof(label));
	to_both = registered(c, &both);
	to_one = registered(c, &one);
	if (!stack || !to_both || !to_one)
		ksft_exit_fail_msg("cannot register more profiles\n");
	sub_labels(c, "peer rule matches every profile of the stack", stack,
		   to_both, all_ok);
	sub_labels(c, "peer rule matches one profile of the stack", stack,
		   to_one, peer_mismatch(c->v));
}

/*
 * Kinds mixed: a client bound to a path talking to an abstract or
 * autobound server.  In the NEW ABI a peer check whose peer has no path
 * goes to the sender's own path, through file rules, and the unix rules
 * are not consulted (profile_peer_perm()); the server's side is checked
 * on the client's path.  The OLD ABI's coarse rules do not look at paths.
 */
static void check_mixed_kinds(struct ctx *c)
{
	static const char *const perms[] = { "connect", "send", "receive" };
	const struct variant *v = c->v;
	bool new = v->abi == AA_ABI_NEW;
	struct prof full = { }, less = { }, srv = { };
	char own[PATH_MAX], name[NAME_MAX_LEN], desc[80];
	size_t i;

	run_name(name, sizeof(name), "client");
	snprintf(own, sizeof(own), "%s/%s", aa_policy_dir(policy), name);
	c->client_path = own;
	lacking(&full, v->abi, NULL);
	sub(c, "client on a path", &full, &full, all_ok);
	for (i = 0; i < ARRAY_SIZE(perms); i++) {
		lacking(&less, v->abi, perms[i]);
		snprintf(desc, sizeof(desc), "client on a path, without unix %s",
			 perms[i]);
		sub(c, desc, &full, &less,
		    new ? all_ok : missing_perm(v, CLIENT, perms[i]));
	}

	/*
	 * The server's side, its receive at a dgram send and its send and
	 * receive at a connect, is checked on the client's path: a file rule
	 * denying it r refuses the client.  (The client's own path needs w
	 * for bind and for send alike: no file rule tells them apart.)
	 */
	lacking(&srv, v->abi, NULL);
	add(&srv, "  deny %s r,\n", own);
	sub(c, "server denied r on the client's path", &srv, &full,
	    !new ? all_ok : denied(CLIENT, conn_type(v->type) ? STEP_CONNECT :
				   STEP_SENDTO));
	c->client_path = NULL;
}

static void check_unconfined(struct ctx *c)
{
	sub(c, "unconfined", NULL, NULL, all_ok);
}

/*
 * Named cases for commit 6456ccbd2ff7 ("apparmor: fix regression in fs
 * based unix sockets when using old abi").  Each runs on the socket kinds
 * and types it is about.
 */
static void with_variant(struct ctx *c, enum sock_kind kind, int type,
			 check_fn *fn)
{
	struct variant v = *c->v;
	const struct variant *saved = c->v;

	v.kind = kind;
	v.type = type;
	c->v = &v;
	fn(c);
	c->v = saved;
}

static void each_type(struct ctx *c, enum sock_kind kind, check_fn *fn)
{
	with_variant(c, kind, SOCK_STREAM, fn);
	with_variant(c, kind, SOCK_DGRAM, fn);
	with_variant(c, kind, SOCK_SEQPACKET, fn);
}

static const char *allow_unix(const struct variant *v)
{
	return v->abi == AA_ABI_NEW ? "unix," : "network unix,";
}

static void file_deny_cases(struct ctx *c)
{
	struct prof srv = { }, cli = { };
	char sock[NAME_MAX_LEN];
	bool conn = conn_type(c->v->type);

	sock_name(sock, sizeof(sock));
	rules(&srv, "  %s\n", allow_unix(c->v));
	rules(&cli, "  %s\n  deny %s/%s rw,\n", allow_unix(c->v),
	      aa_policy_dir(policy), sock);
	/* OLD: file rules no longer apply to the connect or the send. */
	sub(c, "client denied rw on the socket path", &srv, &cli,
	    c->v->abi == AA_ABI_OLD ? all_ok :
	    denied(CLIENT, conn ? STEP_CONNECT : STEP_SENDTO));
}

/* (a) OLD ABI, "network unix," plus a file deny on the path: allowed. */
/* (d) NEW ABI, the same file deny denies connect and send. */
static void check_file_deny(struct ctx *c)
{
	each_type(c, KIND_PATHNAME, file_deny_cases);
}

static void receiver_cases(struct ctx *c)
{
	const struct variant *v = c->v;
	struct prof srv = { }, cli = { };

	if (v->abi == AA_ABI_NEW)
		all_perms_but(&srv, v->abi, "receive");
	else
		rules(&srv, "  network unix,\n  deny network (receive) unix,\n");
	rules(&cli, "  %s\n", allow_unix(v));
	/* A socketpair's receiver is the sending process itself. */
	sub(c, "receiver without receive", &srv,
	    v->kind == KIND_UNNAMED ? &srv : &cli,
	    env.have_v9_unix ? denied(CLIENT, STEP_SENDTO) :
	    denied(v->kind == KIND_UNNAMED ? CLIENT : SERVER, STEP_RECV));
}

/* (b) The receiver's profile is consulted at the sender's send. */
static void check_receiver_at_send(struct ctx *c)
{
	with_variant(c, KIND_ABSTRACT, SOCK_DGRAM, receiver_cases);
	with_variant(c, KIND_UNNAMED, SOCK_DGRAM, receiver_cases);
}

static void bind_cases(struct ctx *c)
{
	struct prof srv = { }, cli = { };

	rules(&cli, "  %s\n", allow_unix(c->v));
	rules(&srv, "  %s\n  deny %s/* w,\n", allow_unix(c->v),
	      aa_policy_dir(policy));
	sub(c, "server denied w on the directory", &srv, &cli,
	    denied(SERVER, STEP_BIND));
}

/* (c) Binding to a path needs file "w" in both ABIs. */
static void check_bind_needs_w(struct ctx *c)
{
	each_type(c, KIND_PATHNAME, bind_cases);
}

/*
 * Sockets that change hands: a pair created under one profile, one end
 * used under another.  What the kernel does (6.17+), and why:
 * - read() and write() under a label not cached on the socket revalidate
 *   it (aa_file_perm() -> aa_unix_file_perm()), and so does receipt with
 *   SCM_RIGHTS, where the kernel drops a descriptor it denies (MSG_CTRUNC,
 *   no errno).  A socket created unconfined is delegated: never
 *   revalidated (__file_is_delegated()).
 * - An end bound to a path is revalidated on its own path, by the request
 *   alone (file rules, or the coarse rule in the OLD ABI), and its peer is
 *   not looked at.  An end not on a path whose peer is on one: file rules
 *   on the peer's path (NEW ABI only; the OLD ABI leaves socket paths to
 *   network rules).  Two ends not on paths: send and receive both ways,
 *   the user's label towards the other end's and back (xcheck()),
 *   whichever the operation, so a lack on either side denies both.
 * - sendmsg() and recvmsg() skip the file check.  A dgram send, by write()
 *   as by sendmsg(), asks the sender's current label for send, towards
 *   the peer's path when it has one, else for its own path when it has
 *   one: under the NEW ABI a path decides through file rules, and the
 *   unix rules are not consulted (unix_may_send).  Delegation does not
 *   spare it.  Stream and seqpacket messages and every receive are not
 *   mediated per message.
 * - A listener handed over: its receipt checks nothing (no peer, and read
 *   and write are send and receive, which only a peer is checked for).
 *   accept() asks the accepting task's label for accept, whoever created
 *   the listener (apparmor_socket_accept()); the client's connect asked
 *   the label stored on the listener, which is why only a listener that
 *   changes hands tells this check apart.  A listener on a path under the
 *   NEW ABI is left to file rules, and accept is not one of NET_FS_PERMS:
 *   neither a missing unix accept nor a denied path stops it.
 */
enum lack {
	LACK_NONE,
	LACK_SEND,
	LACK_RECEIVE,
	LACK_ACCEPT,
	LACK_OWN_PATH,		/* deny rw on the path of the end used */
	LACK_PEER_PATH,		/* deny rw on the path of its peer */
};

struct handoff_case {
	const char *desc;
	bool pair, on_path, listener;	/* the shapes it runs on */
	bool creator_confined;
	enum lack creator, user;
};

/* clang-format off */
static const struct handoff_case handoff_cases[] = {
	/* desc              pair   path   listen confined creator  user */
	{ "both allowed",    true,  true,  true,  true,  LACK_NONE, LACK_NONE },
	{ "user lacks send", true,  true,  false, true,  LACK_NONE, LACK_SEND },
	{ "user lacks receive",
			     true,  true,  false, true,  LACK_NONE, LACK_RECEIVE },
	{ "creator lacks send",
			     true,  false, false, true,  LACK_SEND, LACK_NONE },
	{ "unconfined creator, user lacks send",
			     true,  true,  false, false, LACK_NONE, LACK_SEND },
	{ "user lacks accept",
			     false, false, true,  true,  LACK_NONE, LACK_ACCEPT },
	{ "unconfined creator, user lacks accept",
			     false, false, true,  false, LACK_NONE, LACK_ACCEPT },
	{ "user denied its own path",
			     false, true,  true,  true,  LACK_NONE, LACK_OWN_PATH },
	{ "user denied the peer's path",
			     false, true,  false, true,  LACK_NONE, LACK_PEER_PATH },
	{ "unconfined creator, user denied the peer's path",
			     false, true,  false, false, LACK_NONE, LACK_PEER_PATH },
};
/* clang-format on */

/* What a listener's user meets at accept(), the one op it runs. */
static struct handoff_outcome listener_expect(const struct handoff_case *hc,
					      enum aa_abi abi,
					      enum handoff_shape shape)
{
	if (hc->user == LACK_ACCEPT &&
	    !(abi == AA_ABI_NEW && shape == HSHAPE_LISTENER))
		return (struct handoff_outcome){ .step = HS_OP, .err = EACCES };
	return (struct handoff_outcome){ .step = HS_DONE };
}

/* Whether revalidating @op's end under the user's label denies it. */
static bool revalidation_denies(const struct handoff_case *hc,
				enum aa_abi abi, enum handoff_shape shape,
				enum handoff_op op)
{
	bool new = abi == AA_ABI_NEW;

	if (!hc->creator_confined)
		return false;
	switch (shape) {
	case HSHAPE_PAIR:
		return hc->creator != LACK_NONE || hc->user == LACK_SEND ||
		       hc->user == LACK_RECEIVE;
	case HSHAPE_BOUND:
	case HSHAPE_FROM_BOUND:
		if (new)
			return hc->user == LACK_OWN_PATH;
		/* Receipt asks for read and write. */
		return (op != HOP_READ && hc->user == LACK_SEND) ||
		       (op != HOP_WRITE && hc->user == LACK_RECEIVE);
	default:
		return new && hc->user == LACK_PEER_PATH;
	}
}

static struct handoff_outcome handoff_expect(const struct handoff_case *hc,
					     enum aa_abi abi,
					     const struct handoff *h)
{
	/* io_uring SEND and RECV: the same decisions as sendmsg and recvmsg. */
	enum handoff_op op = h->op == HOP_URING_SEND ? HOP_SENDMSG :
			     h->op == HOP_URING_RECV ? HOP_RECVMSG : h->op;
	bool dgram = h->type == SOCK_DGRAM;
	bool file_op = op == HOP_READ || op == HOP_WRITE;
	bool reads = op == HOP_READ || op == HOP_RECVMSG;
	/* Receipt revalidates for read and write: asked as a write. */
	enum handoff_op recv_as = HOP_WRITE;
	enum lack send_lack = h->shape == HSHAPE_PAIR || abi != AA_ABI_NEW ?
			      LACK_SEND : h->shape == HSHAPE_FROM_BOUND ?
			      LACK_OWN_PATH : LACK_PEER_PATH;

	if (handoff_shape_listens(h->shape))
		return listener_expect(hc, abi, h->shape);
	/* The creator's own dgram send queues what the user will read. */
	if (reads && dgram && hc->creator == LACK_SEND)
		return (struct handoff_outcome){ .step = HS_SEED, .err = EACCES };
	if (h->how == HANDOFF_PASS &&
	    (revalidation_denies(hc, abi, h->shape, recv_as) ||
	     revalidation_denies(hc, abi, h->shape, HOP_READ)))
		return (struct handoff_outcome){ .step = HS_RECV_FD,
						 .fault = HF_NOT_INSTALLED };
	if (file_op && revalidation_denies(hc, abi, h->shape, op))
		return (struct handoff_outcome){ .step = HS_OP, .err = EACCES };
	if (!reads && dgram && hc->user == send_lack)
		return (struct handoff_outcome){ .step = HS_OP, .err = EACCES };
	return (struct handoff_outcome){ .step = HS_DONE };
}

/* Rules for @lack; @paths are the ends' socket paths in the run dir. */
static void lack_rules(struct prof *p, enum aa_abi abi, enum lack lack,
		       char paths[2][NAME_MAX_LEN])
{
	static const char *const perm[] = {
		[LACK_SEND] = "send",
		[LACK_RECEIVE] = "receive",
		[LACK_ACCEPT] = "accept",
	};

	lacking(p, abi, (size_t)lack < ARRAY_SIZE(perm) ? perm[lack] : NULL);
	if (lack == LACK_OWN_PATH || lack == LACK_PEER_PATH)
		add(p, "  deny %s/%s rw,\n", aa_policy_dir(policy),
		    paths[lack == LACK_OWN_PATH ? 0 : 1]);
}

static void handoff_sub(struct ctx *c, enum handoff_shape shape,
			const struct handoff_case *hc)
{
	struct __test_metadata *_metadata = c->metadata;
	const struct variant *v = c->v;
	struct prof creator = { }, user = { };
	char names[2][NAME_MAX_LEN], path[2][PATH_MAX];
	struct handoff h = {
		.how = v->how,
		.shape = shape,
		.type = v->type,
		.path = { path[0], path[1] },
	};
	struct handoff_outcome want, got;
	enum handoff_op first, end;
	char w[128], g[128];
	int i, ret;

	run_name(names[0], sizeof(names[0]), "end0");
	run_name(names[1], sizeof(names[1]), "end1");
	for (i = 0; i < 2; i++)
		snprintf(path[i], sizeof(path[i]), "%s/%s",
			 aa_policy_dir(policy), names[i]);
	lack_rules(&creator, v->abi, hc->creator, names);
	/* change_profile writes the task's attr file. */
	add(&creator, "  /proc/*/attr/{apparmor/,}current w,\n  change_profile,\n");
	lack_rules(&user, v->abi, hc->user, names);
	if (shape == HSHAPE_ABSTRACT_LISTENER)
		h.path[0] = names[0];
	if (shape == HSHAPE_FROM_BOUND)
		h.path[1] = names[1];
	h.creator = hc->creator_confined ? registered(c, &creator) : NULL;
	h.user = registered(c, &user);
	if (c->collect) {
		if ((hc->creator_confined && !h.creator) || !h.user)
			ksft_exit_fail_msg("cannot register more profiles\n");
		return;
	}
	c->subs++;
	ASSERT_FALSE((hc->creator_confined && !h.creator) || !h.user);
	/* A listener is used once, by accept(). */
	first = handoff_shape_listens(shape) ? HOP_ACCEPT :
		v->uring ? HOP_URING_SEND : HOP_WRITE;
	end = handoff_shape_listens(shape) ? HOP_COUNT :
	      v->uring ? HOP_ACCEPT : HOP_URING_SEND;
	for (h.op = first; h.op < end; h.op++) {
		/*
		 * A received end on a path: its receipt is the check; what
		 * it does after is what it does after a change_profile.
		 */
		if (v->how == HANDOFF_PASS && !handoff_shape_listens(shape) &&
		    shape != HSHAPE_PAIR && h.op != HOP_WRITE &&
		    h.op != HOP_READ)
			continue;
		ret = handoff_run(&h, &got);
		unlink(path[0]);
		unlink(path[1]);
		ASSERT_EQ(0, ret) {
			TH_LOG("%s: cannot run: %s", hc->desc, strerror(-ret));
		}
		want = handoff_expect(hc, v->abi, &h);
		EXPECT_TRUE(want.step == got.step && want.err == got.err &&
			    want.fault == got.fault) {
			TH_LOG("%s, %s, %s after %s: expected %s, got %s",
			       handoff_shape_name(shape), hc->desc,
			       handoff_op_name(h.op), handoff_how_name(v->how),
			       handoff_outcome_str(&want, w, sizeof(w)),
			       handoff_outcome_str(&got, g, sizeof(g)));
		}
	}
}

static bool shape_runs(const struct variant *v, enum handoff_shape shape)
{
	/* accept() by its system call; the socket systemd hands over. */
	if (handoff_shape_listens(shape))
		return conn_type(v->type) && !v->uring;
	/*
	 * io_uring reaches the socket hooks sendmsg() and recvmsg() reach:
	 * what the names of the ends change there is tested with those.  A
	 * fork() splits a socketpair: the labels compared are those of a
	 * change_profile, which runs every shape.
	 */
	return shape == HSHAPE_PAIR || !(v->uring || v->how == HANDOFF_FORK);
}

static bool case_runs(const struct handoff_case *hc, enum handoff_shape shape)
{
	switch (shape) {
	case HSHAPE_PAIR:
		return hc->pair;
	case HSHAPE_LISTENER:
		return hc->listener;
	case HSHAPE_ABSTRACT_LISTENER:
		return hc->listener && hc->user != LACK_OWN_PATH;
	case HSHAPE_FROM_BOUND:
		return hc->on_path && hc->user != LACK_PEER_PATH;
	default:
		return hc->on_path;
	}
}

static void check_handoff(struct ctx *c)
{
	enum handoff_shape shape;
	size_t i;

	for (shape = 0; shape < HSHAPE_COUNT; shape++)
		for (i = 0; shape_runs(c->v, shape) &&
		     i < ARRAY_SIZE(handoff_cases); i++)
			if (case_runs(&handoff_cases[i], shape))
				handoff_sub(c, shape, &handoff_cases[i]);
}

/*
 * Profile replacement while connected: a socketpair in use under profile
 * R, then R replaced by a version lacking send or receive, then the same
 * operation again.  What the kernel does (7.2), and why:
 * - A dgram send checks the sending task's label, which is R's newest
 *   version: without send, it is refused.
 * - The receiving end is checked with the label stored on its socket when
 *   it was created (apparmor_unix_may_send() uses peer_ctx->label, not its
 *   newest version): the old R still allows receive, so the send goes on.
 * - Stream and seqpacket messages are not mediated per message, and a
 *   write() revalidated against the replaced profile is not revoked: the
 *   file was allowed under R, and R's newest version is a subset of the
 *   task's label (__file_sock_perm()).
 */
static int replace_with(void *blob)
{
	return aa_policy_replace(policy, blob);
}

static void replaced_prof(struct prof *r, enum aa_abi abi, char *name,
			  size_t len)
{
	snprintf(name, len, "replaced_%s", abi == AA_ABI_NEW ? "new" : "old");
	r->name = name;
	lacking(r, abi, NULL);
}

static void replaced_sub(struct __test_metadata *_metadata,
			 const struct handoff *h, const char *lack)
{
	bool denied = h->type == SOCK_DGRAM && !strcmp(lack, "send");
	struct handoff_outcome got;
	char g[128];
	int ret;

	ret = handoff_run(h, &got);
	ASSERT_EQ(0, ret) TH_LOG("replacing: %s", strerror(-ret));
	EXPECT_TRUE(got.step == (denied ? HS_OP : HS_DONE) &&
		    got.err == (denied ? EACCES : 0) && !got.fault) {
		TH_LOG("%s %s after a replacement without %s: expected %s, got %s",
		       type_name(h->type), handoff_op_name(h->op), lack,
		       denied ? "op: EACCES" : "done",
		       handoff_outcome_str(&got, g, sizeof(g)));
	}
}

static void check_replaced(struct ctx *c)
{
	static const char *const lacks[] = { "send", "receive" };
	static const int types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET };
	struct __test_metadata *_metadata = c->metadata;
	const struct variant *v = c->v;
	struct prof r = { }, strict = { };
	static const enum handoff_op ops[] = { HOP_WRITE, HOP_SENDMSG };
	char name[32], blob[2][64], restore[64], err[4096];
	struct handoff h = { .how = HANDOFF_REPLACE, .replace = replace_with };
	size_t i, t, o;
	int ret;

	replaced_prof(&r, v->abi, name, sizeof(name));
	h.creator = registered(c, &r);
	if (c->collect) {
		if (!h.creator)
			ksft_exit_fail_msg("cannot register more profiles\n");
		return;
	}
	ASSERT_NE(NULL, h.creator);
	/* Compiled once; replacing is then a write to .replace. */
	snprintf(restore, sizeof(restore), "%s.bin", name);
	ret = aa_policy_compile(policy, env.parser, v->abi, h.creator, r.text,
				restore, err, sizeof(err));
	ASSERT_EQ(0, ret) TH_LOG("compiling %s: %s", name, err);
	for (i = 0; i < ARRAY_SIZE(lacks); i++) {
		lacking(&strict, v->abi, lacks[i]);
		snprintf(blob[i], sizeof(blob[i]), "%s-no-%s.bin", name, lacks[i]);
		ret = aa_policy_compile(policy, env.parser, v->abi, h.creator,
					strict.text, blob[i], err, sizeof(err));
		ASSERT_EQ(0, ret) TH_LOG("compiling %s: %s", blob[i], err);
	}
	for (i = 0; i < ARRAY_SIZE(lacks); i++) {
		h.arg = blob[i];
		for (t = 0; t < ARRAY_SIZE(types); t++) {
			h.type = types[t];
			for (o = 0; o < ARRAY_SIZE(ops); o++) {
				h.op = ops[o];
				ret = aa_policy_replace(policy, restore);
				ASSERT_EQ(0, ret) TH_LOG("restoring %s: %s",
							 name, strerror(-ret));
				c->subs++;
				replaced_sub(_metadata, &h, lacks[i]);
			}
		}
	}
	ret = aa_policy_replace(policy, restore);
	ASSERT_EQ(0, ret) TH_LOG("restoring %s: %s", name, strerror(-ret));
}

/*
 * Denials are audited, and complain mode allows and logs what enforce
 * mode denies.  The client's profile lacks one permission without a deny
 * rule (explicit denials are not audited); the record read back from the
 * audit log names the operation, the profile, the socket and the peer.
 */
struct audit_case {
	int type;
	const char *perm;	/* the client lacks it */
	const char *op;		/* operation= of the record */
	const char *requested;	/* requested_mask= */
	enum step stop;		/* where enforce mode stops the client */
};

/* 6.17+: a stream connect asks for send and receive with connect. */
static const struct audit_case audit_cases[] = {
	{ SOCK_DGRAM, "send", "sendmsg", "send", STEP_SENDTO },
	{ SOCK_STREAM, "connect", "connect", "send receive connect",
	  STEP_CONNECT },
};

#define AUDIT_WAIT_MS 5000

static void expect_field(struct __test_metadata *_metadata, const char *rec,
			 const char *key, const char *want)
{
	char got[256];

	EXPECT_TRUE(audit_field(rec, key, got, sizeof(got)) &&
		    !strcmp(got, want)) {
		TH_LOG("audit record: %s=\"%s\" expected, in: %s", key, want,
		       rec);
	}
}

/* 7.3 logs the masks as requested= and denied=, 7.2 as *_mask=. */
static void expect_mask(struct __test_metadata *_metadata, const char *rec,
			const char *key, const char *want)
{
	char mask_key[32], val[256];

	snprintf(mask_key, sizeof(mask_key), "%s_mask", key);
	expect_field(_metadata, rec,
		     audit_field(rec, key, val, sizeof(val)) ? key : mask_key,
		     want);
}

static void expect_no_field(struct __test_metadata *_metadata,
			    const char *rec, const char *key)
{
	char got[256];

	EXPECT_FALSE(audit_field(rec, key, got, sizeof(got))) {
		TH_LOG("audit record: no %s= expected, in: %s", key, rec);
	}
}

static void audit_sub(struct ctx *c, const struct audit_case *ac,
		      bool complain, int fd)
{
	struct __test_metadata *_metadata = c->metadata;
	const struct variant *v = c->v;
	struct prof srv = { }, cli = { };
	char cname[48], rec[4096], peer_addr[NAME_MAX_LEN + 1], desc[96];
	const char *outcome = complain ? "apparmor=\"ALLOWED\"" :
					 "apparmor=\"DENIED\"";
	char profile_kv[NAME_MAX_LEN + 16];
	const char *needles[3];
	const char *label[SIDE_COUNT];
	int ret;

	/* Names are global: one per ABI, type and mode. */
	snprintf(cname, sizeof(cname), "audit_%s_%s_%s",
		 v->abi == AA_ABI_NEW ? "new" : "old", type_name(ac->type),
		 complain ? "complain" : "enforce");
	cli.name = cname;
	all_perms_but(&cli, v->abi, ac->perm);
	lacking(&srv, v->abi, NULL);
	label[SERVER] = registered(c, &srv);
	label[CLIENT] = registered(c, &cli);
	if (!label[SERVER] || !label[CLIENT])
		ksft_exit_fail_msg("cannot register more profiles\n");
	if (c->collect) {
		if (complain && aa_policy_complain(policy, label[CLIENT]))
			ksft_exit_fail_msg("cannot set complain mode\n");
		return;
	}
	snprintf(desc, sizeof(desc), "client without %s, %s mode", ac->perm,
		 complain ? "complain" : "enforce");
	c->complain[CLIENT] = complain;
	sub_labels(c, desc, label[SERVER], label[CLIENT],
		   complain ? all_ok : denied(CLIENT, ac->stop));
	c->complain[CLIENT] = false;

	snprintf(profile_kv, sizeof(profile_kv), "profile=\"%s\"",
		 label[CLIENT]);
	needles[0] = outcome;
	needles[1] = profile_kv;
	needles[2] = NULL;
	ret = audit_log_find(fd, needles, rec, sizeof(rec), AUDIT_WAIT_MS);
	ASSERT_EQ(0, ret) {
		TH_LOG("%s: no %s record for %s in the audit log: %s", desc,
		       outcome, label[CLIENT], strerror(-ret));
	}
	expect_field(_metadata, rec, "operation", ac->op);
	expect_field(_metadata, rec, "class", "net");
	expect_field(_metadata, rec, "family", "unix");
	expect_field(_metadata, rec, "sock_type", type_name(ac->type));
	expect_mask(_metadata, rec, "requested",
		    env.have_v9_unix ? ac->requested : ac->perm);
	expect_mask(_metadata, rec, "denied", ac->perm);
	/*
	 * 6.17+ names the abstract address the client was refused (before,
	 * the check did not see it), and the NEW ABI the label bound there
	 * (the OLD ABI's coarse check does not look at it).
	 */
	sock_name(peer_addr + 1, sizeof(peer_addr) - 1);
	peer_addr[0] = '@';
	if (env.have_v9_unix)
		expect_field(_metadata, rec, "peer_addr", peer_addr);
	else
		expect_no_field(_metadata, rec, "peer_addr");
	if (v->abi == AA_ABI_NEW)
		expect_field(_metadata, rec, "peer", label[SERVER]);
	else
		expect_no_field(_metadata, rec, "peer");
}

static void check_audit(struct ctx *c)
{
	struct __test_metadata *_metadata = c->metadata;
	char why[160];
	size_t i;
	int fd = -1, mode;

	if (!c->collect) {
		fd = audit_log_open(why, sizeof(why));
		if (fd < 0)
			SKIP(return, "%s", why);
	}
	for (mode = 0; mode < 2; mode++) {
		for (i = 0; i < ARRAY_SIZE(audit_cases); i++) {
			struct variant v = *c->v;
			const struct variant *saved = c->v;

			v.kind = KIND_ABSTRACT;
			v.type = audit_cases[i].type;
			c->v = &v;
			audit_sub(c, &audit_cases[i], mode, fd);
			c->v = saved;
		}
	}
	if (fd >= 0)
		close(fd);
}

static void load_policy(struct __test_metadata *_metadata);

/* SKIPs, with the reason, what this system cannot run. */
static void require(struct __test_metadata *_metadata, enum aa_abi abi,
		    bool confined)
{
	if (!env.enabled)
		SKIP(return, "%s", env.skip[AA_ABI_OLD]);
	ASSERT_FALSE(no_policy[0]) {
		TH_LOG("%s", no_policy);
	}
	if (!confined)
		return;
	if (env.skip[abi][0])
		SKIP(return, "%s", env.skip[abi]);
#ifndef HAVE_LIBAPPARMOR
	SKIP(return, "built without libapparmor (pkg-config libapparmor): cannot change profile");
#endif
	if (!load->tried)
		load_policy(_metadata);
	ASSERT_TRUE(load->loaded) {
		TH_LOG("%s", load->error);
	}
}

static void run_variant(struct __test_metadata *_metadata,
			const struct variant *v, bool confined, check_fn *fn)
{
	struct ctx c = { .v = v, .metadata = _metadata };

	require(_metadata, v->abi, confined);
	if (_metadata->exit_code == KSFT_SKIP)
		return;
	fn(&c);
	/* A check that ran nothing would pass without testing anything. */
	if (_metadata->exit_code != KSFT_SKIP)
		ASSERT_LT(0, c.subs);
}

static void run_check(struct __test_metadata *_metadata, enum sock_kind kind,
		      int type, enum aa_abi abi, bool confined, check_fn *fn)
{
	struct variant v = {
		.abi = abi,
		.kind = kind,
		.type = type,
	};

	run_variant(_metadata, &v, confined, fn);
}

FIXTURE(af_unix) {};

FIXTURE_VARIANT(af_unix) {
	enum sock_kind kind;
	int type;
};

FIXTURE_SETUP(af_unix) {}

FIXTURE_TEARDOWN(af_unix) {}

FIXTURE_VARIANT_ADD(af_unix, pathname_stream) {
	.kind = KIND_PATHNAME,
	.type = SOCK_STREAM,
};

FIXTURE_VARIANT_ADD(af_unix, pathname_dgram) {
	.kind = KIND_PATHNAME,
	.type = SOCK_DGRAM,
};

FIXTURE_VARIANT_ADD(af_unix, pathname_seqpacket) {
	.kind = KIND_PATHNAME,
	.type = SOCK_SEQPACKET,
};

FIXTURE_VARIANT_ADD(af_unix, abstract_stream) {
	.kind = KIND_ABSTRACT,
	.type = SOCK_STREAM,
};

FIXTURE_VARIANT_ADD(af_unix, abstract_dgram) {
	.kind = KIND_ABSTRACT,
	.type = SOCK_DGRAM,
};

FIXTURE_VARIANT_ADD(af_unix, abstract_seqpacket) {
	.kind = KIND_ABSTRACT,
	.type = SOCK_SEQPACKET,
};

FIXTURE_VARIANT_ADD(af_unix, unnamed_stream) {
	.kind = KIND_UNNAMED,
	.type = SOCK_STREAM,
};

FIXTURE_VARIANT_ADD(af_unix, unnamed_dgram) {
	.kind = KIND_UNNAMED,
	.type = SOCK_DGRAM,
};

FIXTURE_VARIANT_ADD(af_unix, unnamed_seqpacket) {
	.kind = KIND_UNNAMED,
	.type = SOCK_SEQPACKET,
};

FIXTURE_VARIANT_ADD(af_unix, autobind_stream) {
	.kind = KIND_AUTOBIND,
	.type = SOCK_STREAM,
};

FIXTURE_VARIANT_ADD(af_unix, autobind_dgram) {
	.kind = KIND_AUTOBIND,
	.type = SOCK_DGRAM,
};

FIXTURE_VARIANT_ADD(af_unix, autobind_seqpacket) {
	.kind = KIND_AUTOBIND,
	.type = SOCK_SEQPACKET,
};

/* Unconfined tasks: every operation allowed, whatever policy is loaded. */
TEST_F(af_unix, unconfined)
{
	run_check(_metadata, variant->kind, variant->type,
		  AA_ABI_OLD, false, check_unconfined);
}

TEST_F(af_unix, old_abi_allow_all)
{
	run_check(_metadata, variant->kind, variant->type,
		  AA_ABI_OLD, true, check_allow_all);
}

/*
 * On pathname sockets this is also case (e) of 6456ccbd2ff7: before the
 * fix, OLD-ABI checks on them went to file rules only, and the coarse
 * network rules were not enforced.
 */
TEST_F(af_unix, old_abi_each_permission)
{
	run_check(_metadata, variant->kind, variant->type,
		  AA_ABI_OLD, true, check_each_permission);
}

TEST_F(af_unix, old_abi_rule_type)
{
	run_check(_metadata, variant->kind, variant->type,
		  AA_ABI_OLD, true, check_rule_type);
}

TEST_F(af_unix, old_abi_one_side_unconfined)
{
	run_check(_metadata, variant->kind, variant->type,
		  AA_ABI_OLD, true, check_one_side_unconfined);
}

TEST_F(af_unix, new_abi_allow_all)
{
	run_check(_metadata, variant->kind, variant->type,
		  AA_ABI_NEW, true, check_allow_all);
}

TEST_F(af_unix, new_abi_each_permission)
{
	run_check(_metadata, variant->kind, variant->type,
		  AA_ABI_NEW, true, check_each_permission);
}

TEST_F(af_unix, new_abi_one_side_unconfined)
{
	run_check(_metadata, variant->kind, variant->type,
		  AA_ABI_NEW, true, check_one_side_unconfined);
}

TEST_F(af_unix, new_abi_rule_type)
{
	run_check(_metadata, variant->kind, variant->type,
		  AA_ABI_NEW, true, check_rule_type);
}

TEST_F(af_unix, new_abi_rule_addr)
{
	run_check(_metadata, variant->kind, variant->type,
		  AA_ABI_NEW, true, check_rule_addr);
}

TEST_F(af_unix, new_abi_rule_peer_label)
{
	run_check(_metadata, variant->kind, variant->type,
		  AA_ABI_NEW, true, check_rule_peer_label);
}

TEST_F(af_unix, new_abi_rule_peer_addr)
{
	run_check(_metadata, variant->kind, variant->type,
		  AA_ABI_NEW, true, check_rule_peer_addr);
}

TEST_F(af_unix, old_abi_stacked)
{
	run_check(_metadata, variant->kind, variant->type,
		  AA_ABI_OLD, true, check_stacked);
}

TEST_F(af_unix, new_abi_stacked)
{
	run_check(_metadata, variant->kind, variant->type,
		  AA_ABI_NEW, true, check_stacked);
}

static void stacked_peer_types(struct ctx *c)
{
	each_type(c, KIND_ABSTRACT, check_stacked_peer);
}

/* A socketpair's peer is the process itself: abstract sockets here. */
TEST(new_abi_stacked_peer_label)
{
	run_check(_metadata, KIND_ABSTRACT, SOCK_STREAM,
		  AA_ABI_NEW, true, stacked_peer_types);
}

static void run_replaced(struct __test_metadata *_metadata, enum aa_abi abi)
{
	if (env.enabled && !env.have_v9_unix)
		SKIP(return, "%s",
		     "kernel without AppArmor network_v9/af_unix (6.17+): dgram sends checked against the replaced profile");
	run_check(_metadata, KIND_UNNAMED, SOCK_DGRAM, abi, true, check_replaced);
}

TEST(old_abi_replaced_while_connected)
{
	run_replaced(_metadata, AA_ABI_OLD);
}

TEST(new_abi_replaced_while_connected)
{
	run_replaced(_metadata, AA_ABI_NEW);
}

TEST(old_abi_audit_and_complain)
{
	run_check(_metadata, KIND_ABSTRACT, SOCK_DGRAM, AA_ABI_OLD, true,
		  check_audit);
}

TEST(new_abi_audit_and_complain)
{
	run_check(_metadata, KIND_ABSTRACT, SOCK_DGRAM, AA_ABI_NEW, true,
		  check_audit);
}

static void mixed_kinds_types(struct ctx *c)
{
	each_type(c, KIND_ABSTRACT, check_mixed_kinds);
	each_type(c, KIND_AUTOBIND, check_mixed_kinds);
}

TEST(old_abi_client_on_a_path)
{
	run_check(_metadata, KIND_ABSTRACT, SOCK_STREAM, AA_ABI_OLD, true,
		  mixed_kinds_types);
}

TEST(new_abi_client_on_a_path)
{
	run_check(_metadata, KIND_ABSTRACT, SOCK_STREAM, AA_ABI_NEW, true,
		  mixed_kinds_types);
}

/*
 * Commit 6456ccbd2ff7 ("apparmor: fix regression in fs based unix sockets
 * when using old abi"), v6.17-rc1: each check picks its own socket kinds.
 * Case (e) is af_unix.pathname_*.old_abi_each_permission.
 */
TEST(fix_6456ccbd2ff7_a_old_abi_file_deny_is_not_enforced)
{
	run_check(_metadata, KIND_PATHNAME, SOCK_STREAM,
		  AA_ABI_OLD, true, check_file_deny);
}

TEST(fix_6456ccbd2ff7_b_old_abi_receiver_checked)
{
	run_check(_metadata, KIND_PATHNAME, SOCK_STREAM,
		  AA_ABI_OLD, true, check_receiver_at_send);
}

TEST(fix_6456ccbd2ff7_b_new_abi_receiver_checked)
{
	run_check(_metadata, KIND_PATHNAME, SOCK_STREAM,
		  AA_ABI_NEW, true, check_receiver_at_send);
}

TEST(fix_6456ccbd2ff7_c_old_abi_bind_needs_file_w)
{
	run_check(_metadata, KIND_PATHNAME, SOCK_STREAM,
		  AA_ABI_OLD, true, check_bind_needs_w);
}

TEST(fix_6456ccbd2ff7_c_new_abi_bind_needs_file_w)
{
	run_check(_metadata, KIND_PATHNAME, SOCK_STREAM,
		  AA_ABI_NEW, true, check_bind_needs_w);
}

TEST(fix_6456ccbd2ff7_d_new_abi_file_deny_denies)
{
	run_check(_metadata, KIND_PATHNAME, SOCK_STREAM,
		  AA_ABI_NEW, true, check_file_deny);
}

FIXTURE(handoff) {};

FIXTURE_VARIANT(handoff) {
	enum handoff_how how;
	int type;
};

FIXTURE_SETUP(handoff) {}

FIXTURE_TEARDOWN(handoff) {}

FIXTURE_VARIANT_ADD(handoff, change_profile_stream) {
	.how = HANDOFF_CHANGE,
	.type = SOCK_STREAM,
};

FIXTURE_VARIANT_ADD(handoff, change_profile_dgram) {
	.how = HANDOFF_CHANGE,
	.type = SOCK_DGRAM,
};

FIXTURE_VARIANT_ADD(handoff, change_profile_seqpacket) {
	.how = HANDOFF_CHANGE,
	.type = SOCK_SEQPACKET,
};

FIXTURE_VARIANT_ADD(handoff, fork_stream) {
	.how = HANDOFF_FORK,
	.type = SOCK_STREAM,
};

FIXTURE_VARIANT_ADD(handoff, fork_dgram) {
	.how = HANDOFF_FORK,
	.type = SOCK_DGRAM,
};

FIXTURE_VARIANT_ADD(handoff, fork_seqpacket) {
	.how = HANDOFF_FORK,
	.type = SOCK_SEQPACKET,
};

FIXTURE_VARIANT_ADD(handoff, scm_rights_stream) {
	.how = HANDOFF_PASS,
	.type = SOCK_STREAM,
};

FIXTURE_VARIANT_ADD(handoff, scm_rights_dgram) {
	.how = HANDOFF_PASS,
	.type = SOCK_DGRAM,
};

FIXTURE_VARIANT_ADD(handoff, scm_rights_seqpacket) {
	.how = HANDOFF_PASS,
	.type = SOCK_SEQPACKET,
};

static void run_handoff(struct __test_metadata *_metadata,
			enum handoff_how how, int type, enum aa_abi abi,
			bool uring, check_fn *fn)
{
	struct variant v = {
		.abi = abi,
		.kind = KIND_UNNAMED,
		.type = type,
		.how = how,
		.uring = uring,
	};
	int ret;

	/* Older kernels revalidate unix sockets as other sockets. */
	if (env.enabled && !env.have_v9_unix)
		SKIP(return, "%s",
		     "kernel without AppArmor network_v9/af_unix (6.17+): the unix socket revalidation these cases expect");
	ret = uring ? handoff_uring_probe() : 0;
	if (ret == -EOPNOTSUPP)
		SKIP(return, "built without liburing (pkg-config liburing)");
	if (ret)
		SKIP(return, "io_uring unavailable: %s", strerror(-ret));
	run_variant(_metadata, &v, true, fn);
}

TEST_F(handoff, old_abi)
{
	run_handoff(_metadata, variant->how, variant->type, AA_ABI_OLD, false,
		    check_handoff);
}

TEST_F(handoff, new_abi)
{
	run_handoff(_metadata, variant->how, variant->type, AA_ABI_NEW, false,
		    check_handoff);
}

static void handoff_types(struct ctx *c)
{
	with_variant(c, KIND_UNNAMED, SOCK_STREAM, check_handoff);
	with_variant(c, KIND_UNNAMED, SOCK_DGRAM, check_handoff);
	with_variant(c, KIND_UNNAMED, SOCK_SEQPACKET, check_handoff);
}

/* The handoff cases after change_profile, through io_uring. */
TEST(old_abi_io_uring)
{
	run_handoff(_metadata, HANDOFF_CHANGE, SOCK_STREAM, AA_ABI_OLD, true,
		    handoff_types);
}

TEST(new_abi_io_uring)
{
	run_handoff(_metadata, HANDOFF_CHANGE, SOCK_STREAM, AA_ABI_NEW, true,
		    handoff_types);
}

static check_fn *const old_checks[] = {
	check_allow_all, check_each_permission, check_rule_type,
	check_file_deny, check_receiver_at_send, check_bind_needs_w,
	check_one_side_unconfined, check_handoff, check_stacked,
	check_replaced, check_audit, check_mixed_kinds,
};

static check_fn *const new_checks[] = {
	check_allow_all, check_each_permission, check_rule_type,
	check_rule_addr, check_rule_peer_label, check_rule_peer_addr,
	check_file_deny, check_receiver_at_send, check_bind_needs_w,
	check_one_side_unconfined, check_handoff, check_stacked,
	check_stacked_peer, check_replaced, check_audit, check_mixed_kinds,
};

/* Runs every check in collect mode: the profiles it needs, once each. */
static void collect_profiles(enum aa_abi abi)
{
	static const int types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET };
	check_fn *const *checks = abi == AA_ABI_NEW ? new_checks : old_checks;
	size_t n = abi == AA_ABI_NEW ? ARRAY_SIZE(new_checks) :
				       ARRAY_SIZE(old_checks);
	struct variant v = { .abi = abi };
	struct ctx c = { .v = &v, .collect = true };
	size_t i, t;

	for (v.kind = 0; v.kind < KIND_COUNT; v.kind++)
		for (t = 0; t < ARRAY_SIZE(types); t++)
			for (v.type = types[t], i = 0; i < n; i++)
				checks[i](&c);
}

static void cleanup(void)
{
	aa_policy_free(policy);
	policy = NULL;
}

static bool only_listing(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-l") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}

static void load_policy(struct __test_metadata *_metadata)
{
	bool abis[AA_ABI_COUNT];
	struct timespec t0, t1;
	int abi, ret;

	load->tried = true;
	for (abi = 0; abi < AA_ABI_COUNT; abi++)
		abis[abi] = !env.skip[abi][0];
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = aa_policy_load(policy, env.parser, abis, load->error,
			     sizeof(load->error));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	load->loaded = !ret;
	if (ret)
		return;
	TH_LOG("%d profiles compiled and loaded by one apparmor_parser run in %.2f s",
	       aa_policy_count(policy), t1.tv_sec - t0.tv_sec +
	       (t1.tv_nsec - t0.tv_nsec) / 1e9);
}

/*
 * Autobind names are the kernel's choice: learn their length from one, so
 * that addr= rules can match them without assuming a format.
 */
static void probe_autobind(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	socklen_t len = sizeof(addr);
	int fd, err = 0;

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(sa_family_t)) ||
	    getsockname(fd, (struct sockaddr *)&addr, &len))
		err = errno;
	if (fd >= 0)
		close(fd);
	len -= offsetof(struct sockaddr_un, sun_path);
	if (!err && len > 1 && !addr.sun_path[0])
		autobind_len = len - 1;
	else
		snprintf(no_autobind, sizeof(no_autobind),
			 "cannot learn the autobind name format: %s",
			 err ? strerror(err) : "not an abstract name");
}

/*
 * The run directory (also for unconfined tests' pathname sockets) and every
 * profile the checks need; compiled on first use.
 */
static void prepare_policy(void)
{
	int abi;

	load = mmap(NULL, sizeof(*load), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (load == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	memset(load, 0, sizeof(*load));
	probe_autobind();
	aa_cleanup_stale(AA_PROFILE_PREFIX);
	policy = aa_policy_new(AA_PROFILE_PREFIX, no_policy, sizeof(no_policy));
	if (!policy)
		return;
	no_policy[0] = '\0';
	atexit(cleanup);
	for (abi = 0; abi < AA_ABI_COUNT; abi++)
		if (!env.skip[abi][0])
			collect_profiles(abi);
}

int main(int argc, char **argv)
{
	aa_env_probe(&env);
	if (!only_listing(argc, argv))
		prepare_policy();
	return test_harness_run(argc, argv);
}
