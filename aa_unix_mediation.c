// SPDX-License-Identifier: GPL-2.0
/*
 * AppArmor AF_UNIX mediation under the OLD (abi/4.0, coarse "network unix")
 * and the NEW (abi/5.0, fine-grained "unix") policy ABI.
 *
 * Every check runs a full conversation (create, options, bind, listen,
 * connect, accept, names, three send flavours, receive, shutdown) between a
 * server and a client with their own profiles, and asserts the exact first
 * operation that fails on the side under test and its errno.
 *
 * All profiles are generated up front and compiled in one apparmor_parser
 * run: compiling is what makes policy tests slow.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "common.h"
#include "unix_scenario.h"

#define AA_PROFILE_PREFIX "aa_unix_mediation"
#define RULES_MAX 1024

#define MAX_SUBS 32

static struct aa_env env;
static struct aa_policy *policy;
static char run_dir[64];

/*
 * Policy is compiled by the first test that needs it, in its own process:
 * the outcome is shared with the tests that follow.
 */
static struct load_state {
	bool tried;
	bool loaded;
	char error[4096];
} *load;
static pid_t run_pid;

/* Each profile's rule text and the full name it was loaded under. */
static struct {
	enum aa_abi abi;
	char *rules;
	const char *name;
} profiles[AA_MAX_PROFILES];
static int nr_profiles;

/*
 * What a sub-check expects: either every step succeeds on both sides
 * (who == SIDE_COUNT), or @who first fails at @step with @err.
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
	bool confined;
	enum sock_kind kind;
	int type;
};

/*
 * A check is a function that lists sub-checks.  It is called once at start
 * to collect the profiles, then by its test to run and assert them.
 */
struct ctx {
	const struct variant *v;
	bool collect;
	struct __test_metadata *metadata;
	int subs;
};

typedef void check_fn(struct ctx *c);

static const char *const all_unix_perms[] = {
	"create", "bind", "listen", "accept", "connect", "send", "receive",
	"getattr", "shutdown", "getopt", "setopt",
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const char *other_type(int type)
{
	return type == SOCK_STREAM ? "dgram" : "stream";
}

/* Rules every generated profile carries, so the test itself can run. */
static int base_rules(char *buf, size_t len)
{
	/*
	 * The harness kills timed-out tests; libapparmor reads the label
	 * from /proc; pathname sockets live under run_dir.
	 */
	return snprintf(buf, len,
			"  signal (receive) peer=unconfined,\n"
			"  /proc/*/attr/{apparmor/,}current r,\n"
			"  %s/ r,\n  %s/* rw,\n", run_dir, run_dir);
}

static void vrules(char *buf, size_t len, const char *fmt, va_list ap)
{
	int n = base_rules(buf, len);

	vsnprintf(buf + n, len - n, fmt, ap);
}

static __printf(3, 4) void rules(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vrules(buf, len, fmt, ap);
	va_end(ap);
}

/*
 * A profile whose rules start with NAME_TAG is loaded under that name
 * instead of a numbered one, so that other rules can name it.
 */
#define NAME_TAG "  # name: "

static __printf(4, 5) void named_rules(char *buf, size_t len, const char *name,
				       const char *fmt, ...)
{
	int n = snprintf(buf, len, NAME_TAG "%s\n", name);
	va_list ap;

	va_start(ap, fmt);
	vrules(buf + n, len - n, fmt, ap);
	va_end(ap);
}

/* "unix (...)," allowing every permission but @drop (may be NULL). */
static void unix_perms_but(char *buf, size_t len, const char *drop,
			   const char *cond)
{
	char perms[256] = "";
	size_t i;

	for (i = 0; i < ARRAY_LEN(all_unix_perms); i++) {
		if (drop && !strcmp(drop, all_unix_perms[i]))
			continue;
		strcat(perms, perms[0] ? ", " : "");
		strcat(perms, all_unix_perms[i]);
	}
	rules(buf, len, "  unix (%s)%s,\n", perms, cond ? cond : "");
}

static const char *profile_lookup(enum aa_abi abi, const char *text)
{
	int i;

	for (i = 0; i < nr_profiles; i++)
		if (profiles[i].abi == abi && !strcmp(profiles[i].rules, text))
			return profiles[i].name;
	return NULL;
}

static void profile_collect(enum aa_abi abi, const char *text)
{
	size_t tag = strlen(NAME_TAG);
	char name[64];

	if (!text || profile_lookup(abi, text) ||
	    nr_profiles == AA_MAX_PROFILES)
		return;
	if (!strncmp(text, NAME_TAG, tag))
		snprintf(name, sizeof(name), "%.*s",
			 (int)strcspn(text + tag, "\n"), text + tag);
	else
		snprintf(name, sizeof(name), "p%d", nr_profiles);
	profiles[nr_profiles].abi = abi;
	profiles[nr_profiles].rules = strdup(text);
	profiles[nr_profiles].name = aa_policy_add(policy, abi, name, text);
	nr_profiles++;
}

/* The name of a profile every test may refer to in peer=(label=...). */
static void label_of(char *buf, size_t len, const char *what)
{
	snprintf(buf, len, "%s.%d.%s", AA_PROFILE_PREFIX, run_pid, what);
}

static void sock_name(char *buf, size_t len)
{
	snprintf(buf, len, "%s.%d.sock", AA_PROFILE_PREFIX, run_pid);
}

static void sub(struct ctx *c, const char *desc, const char *srv,
		const char *cli, struct expect exp)
{
	struct __test_metadata *_metadata = c->metadata;
	const struct variant *v = c->v;
	struct outcome res[SIDE_COUNT];
	char name[108], path[PATH_MAX];
	struct scenario sc = {
		.kind = v->kind,
		.type = v->type,
		.dir = run_dir,
		.name = name,
		.wait_server = exp.who != CLIENT,
		/* Before 6.17, AppArmor did not label unix socket peers. */
		.peer_labels = env.have_v9_unix,
	};
	int ret;

	if (c->collect) {
		profile_collect(v->abi, srv);
		profile_collect(v->abi, cli);
		return;
	}
	c->subs++;
	sock_name(name, sizeof(name));
	sc.profile[SERVER] = srv ? profile_lookup(v->abi, srv) : NULL;
	sc.profile[CLIENT] = cli ? profile_lookup(v->abi, cli) : NULL;
	ASSERT_FALSE((srv && !sc.profile[SERVER]) || (cli && !sc.profile[CLIENT]));

	ret = scenario_run(&sc, res);
	snprintf(path, sizeof(path), "%s/%s", run_dir, name);
	unlink(path);
	ASSERT_EQ(0, ret);

	if (exp.who == SIDE_COUNT) {
		enum side s;

		for (s = SERVER; s < SIDE_COUNT; s++) {
			if (s == SERVER && v->kind == KIND_UNNAMED)
				continue;
			EXPECT_EQ((int)STEP_DONE, (int)res[s].step) {
				TH_LOG("%s: %s failed at %s: %s", desc,
				       s == SERVER ? "server" : "client",
				       step_name(res[s].step),
				       strerror(res[s].err));
			}
		}
		return;
	}
	EXPECT_EQ((int)exp.step, (int)res[exp.who].step) {
		TH_LOG("%s: %s expected to fail at %s, stopped at %s (%s)",
		       desc, exp.who == SERVER ? "server" : "client",
		       step_name(exp.step), step_name(res[exp.who].step),
		       strerror(res[exp.who].err));
	}
	EXPECT_EQ(exp.err, res[exp.who].err) {
		TH_LOG("%s: %s at %s: expected %s, got %s", desc,
		       exp.who == SERVER ? "server" : "client",
		       step_name(exp.step), strerror(exp.err),
		       strerror(res[exp.who].err));
	}
}

static bool conn_type(int type)
{
	return type != SOCK_DGRAM;
}

/* Both sides allowed everything, and the labels are what we loaded. */
static void check_allow_all(struct ctx *c)
{
	char r[RULES_MAX];

	if (c->v->abi == AA_ABI_NEW)
		rules(r, sizeof(r), "  unix,\n");
	else
		rules(r, sizeof(r), "  network unix,\n");
	sub(c, "allow all", r, r, all_ok);
}

/*
 * Where a side missing one unix permission first fails under the NEW ABI:
 * sockets with a path are mediated through file rules instead (allowed by
 * base_rules()), and a missing "receive" on the receiver is found out at
 * the sender's send.
 */
static struct expect new_abi_missing(const struct variant *v, enum side who,
				     const char *perm)
{
	bool fs = v->kind == KIND_PATHNAME;
	bool conn = conn_type(v->type);

	if (!strcmp(perm, "create"))
		return denied(who, STEP_CREATE);
	if (!strcmp(perm, "setopt"))
		return denied(who, STEP_SETOPT);
	if (!strcmp(perm, "getopt"))
		return denied(who, STEP_GETOPT);
	if (!strcmp(perm, "shutdown"))
		return fs && who == SERVER ? all_ok : denied(who, STEP_SHUTDOWN);

	if (v->kind == KIND_UNNAMED) {
		if (!strcmp(perm, "getattr"))
			return denied(who, STEP_GETSOCKNAME);
		/* Only datagram sends go through unix_may_send(). */
		if (!conn && (!strcmp(perm, "send") || !strcmp(perm, "receive")))
			return denied(who, STEP_SENDTO);
		return all_ok;
	}

	if (who == SERVER) {
		if (fs)
			return all_ok;
		if (!strcmp(perm, "bind"))
			return denied(SERVER, STEP_BIND);
		if (!strcmp(perm, "listen"))
			return conn ? denied(SERVER, STEP_LISTEN) : all_ok;
		if (!strcmp(perm, "getattr"))
			return denied(SERVER, STEP_GETSOCKNAME);
		if (conn && !strcmp(perm, "accept"))
			return denied(SERVER, STEP_ACCEPT);
		/* The listener's who is checked at the client's connect. */
		if (conn && (!strcmp(perm, "send") || !strcmp(perm, "receive")))
			return denied(CLIENT, STEP_CONNECT);
		if (!conn && !strcmp(perm, "receive"))
			return denied(CLIENT, STEP_SENDTO);
		return all_ok;
	}

	/* The client's own socket is never bound: unix rules apply. */
	if (!strcmp(perm, "getattr"))
		return denied(CLIENT, STEP_GETPEERNAME);
	if (fs)
		return all_ok;
	if (conn && (!strcmp(perm, "connect") || !strcmp(perm, "send") ||
		     !strcmp(perm, "receive")))
		return denied(CLIENT, STEP_CONNECT);
	if (!conn && !strcmp(perm, "send"))
		return denied(CLIENT, STEP_SENDTO);
	return all_ok;
}

/*
 * Before 6.17 (no network_v9/af_unix) AppArmor checked each message in
 * sendmsg()/recvmsg() against the caller's own coarse rule, and a dgram
 * connect() needed "connect".
 */
static struct expect pre_v9_missing(const struct variant *v, enum side who,
				    const char *perm)
{
	bool conn = conn_type(v->type);

	if (!strcmp(perm, "send")) {
		if (who == CLIENT)
			return denied(CLIENT, STEP_SENDTO);
		return conn ? denied(SERVER, STEP_REPLY) : all_ok;
	}
	if (!strcmp(perm, "receive")) {
		if (v->kind == KIND_UNNAMED || who == SERVER)
			return denied(who, STEP_RECV);
		return conn ? denied(CLIENT, STEP_RECV_REPLY) : all_ok;
	}
	if (!strcmp(perm, "connect") && who == CLIENT &&
	    v->kind != KIND_UNNAMED)
		return denied(CLIENT, STEP_CONNECT);
	return all_ok;
}

/*
 * OLD ABI: one coarse check per operation against "network unix" rules,
 * paths or not; on 6.17+ the receiver's receive is checked at the send.
 */
static struct expect old_abi_missing(const struct variant *v, enum side who,
				     const char *perm)
{
	bool conn = conn_type(v->type);

	if (!strcmp(perm, "create"))
		return denied(who, STEP_CREATE);
	if (!strcmp(perm, "setopt"))
		return denied(who, STEP_SETOPT);
	if (!strcmp(perm, "getopt"))
		return denied(who, STEP_GETOPT);
	if (!strcmp(perm, "shutdown"))
		return denied(who, STEP_SHUTDOWN);
	if (!strcmp(perm, "getattr"))
		return denied(who, v->kind == KIND_UNNAMED || who == SERVER ?
				    STEP_GETSOCKNAME : STEP_GETPEERNAME);
	if (who == SERVER && !strcmp(perm, "bind"))
		return denied(SERVER, STEP_BIND);
	if (who == SERVER && conn && !strcmp(perm, "listen"))
		return denied(SERVER, STEP_LISTEN);
	if (who == SERVER && conn && !strcmp(perm, "accept"))
		return denied(SERVER, STEP_ACCEPT);
	if (!env.have_v9_unix)
		return pre_v9_missing(v, who, perm);

	if (v->kind == KIND_UNNAMED) {
		if (!conn && (!strcmp(perm, "send") || !strcmp(perm, "receive")))
			return denied(who, STEP_SENDTO);
		return all_ok;
	}
	if (who == SERVER) {
		/* A listener with a path is not checked at connect. */
		if (conn && (!strcmp(perm, "send") || !strcmp(perm, "receive")))
			return v->kind == KIND_PATHNAME ? all_ok :
			       denied(CLIENT, STEP_CONNECT);
		if (!conn && !strcmp(perm, "receive"))
			return denied(CLIENT, STEP_SENDTO);
		return all_ok;
	}
	/* The connecting who asks for connect, send and receive at once. */
	if (conn && (!strcmp(perm, "connect") || !strcmp(perm, "send") ||
		     !strcmp(perm, "receive")))
		return denied(CLIENT, STEP_CONNECT);
	if (!conn && !strcmp(perm, "send"))
		return denied(CLIENT, STEP_SENDTO);
	return all_ok;
}

/* Each permission removed in turn from one who's explicit list. */
static void check_each_permission(struct ctx *c)
{
	const struct variant *v = c->v;
	char full[RULES_MAX], less[RULES_MAX], desc[64];
	enum side who;
	size_t i;

	if (v->abi == AA_ABI_NEW)
		unix_perms_but(full, sizeof(full), NULL, NULL);
	else
		rules(full, sizeof(full), "  network (create, bind, listen, accept, connect, send, receive, getattr, shutdown, getopt, setopt) unix,\n");
	sub(c, "all permissions listed", full, full, all_ok);

	for (who = v->kind == KIND_UNNAMED ? CLIENT : SERVER;
	     who < SIDE_COUNT; who++) {
		for (i = 0; i < ARRAY_LEN(all_unix_perms); i++) {
			const char *perm = all_unix_perms[i];
			struct expect exp;

			if (v->abi == AA_ABI_NEW) {
				unix_perms_but(less, sizeof(less), perm, NULL);
				exp = new_abi_missing(v, who, perm);
			} else {
				char list[256] = "";
				size_t j;

				for (j = 0; j < ARRAY_LEN(all_unix_perms); j++) {
					if (j == i)
						continue;
					strcat(list, list[0] ? ", " : "");
					strcat(list, all_unix_perms[j]);
				}
				rules(less, sizeof(less),
				      "  network (%s) unix,\n", list);
				exp = old_abi_missing(v, who, perm);
			}
			snprintf(desc, sizeof(desc), "%s without %s",
				 who == SERVER ? "server" : "client", perm);
			sub(c, desc, who == SERVER ? less : full,
			    who == CLIENT ? less : full, exp);
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
	char less[RULES_MAX], desc[80];
	enum side who;
	size_t i;

	for (who = v->kind == KIND_UNNAMED ? CLIENT : SERVER;
	     who < SIDE_COUNT; who++) {
		for (i = 0; i < ARRAY_LEN(peer_perms); i++) {
			const char *perm = peer_perms[i];
			struct expect exp;

			if (v->abi == AA_ABI_NEW) {
				unix_perms_but(less, sizeof(less), perm, NULL);
				exp = new_abi_missing(v, who, perm);
			} else {
				rules(less, sizeof(less),
				      "  network unix,\n  deny network (%s) unix,\n",
				      perm);
				exp = old_abi_missing(v, who, perm);
			}
			snprintf(desc, sizeof(desc), "%s without %s, %s unconfined",
				 who == SERVER ? "server" : "client", perm,
				 who == SERVER ? "client" : "server");
			sub(c, desc, who == SERVER ? less : NULL,
			    who == CLIENT ? less : NULL, exp);
		}
	}
}

/* type= (NEW) or the coarse rule's type (OLD): match, then mismatch. */
static void check_rule_type(struct ctx *c)
{
	const struct variant *v = c->v;
	char match[RULES_MAX], other[RULES_MAX], full[RULES_MAX];
	const char *fmt = v->abi == AA_ABI_NEW ? "  unix type=%s,\n" :
						 "  network unix %s,\n";

	rules(full, sizeof(full), fmt, type_name(v->type));
	rules(match, sizeof(match), fmt, type_name(v->type));
	rules(other, sizeof(other), fmt, other_type(v->type));
	sub(c, "type matches", match, match, all_ok);
	if (v->kind != KIND_UNNAMED)
		sub(c, "server type differs", other, full,
		    denied(SERVER, STEP_CREATE));
	sub(c, "client type differs", full, other, denied(CLIENT, STEP_CREATE));
}

/* The address a server of this kind binds, as an AppArmor addr= value. */
static bool rule_addr(const struct variant *v, char *buf, size_t len)
{
	char name[108];

	sock_name(name, sizeof(name));
	switch (v->kind) {
	case KIND_ABSTRACT:
		snprintf(buf, len, "@%s", name);
		return true;
	case KIND_UNNAMED:
		snprintf(buf, len, "none");
		return true;
	case KIND_AUTOBIND:
		/* Unknown at bind; then the five hex digits the kernel chose. */
		snprintf(buf, len, "@?????");
		return true;
	default:
		return false;
	}
}

static void skip_unless_addr(struct ctx *c, char *addr, size_t len)
{
	struct __test_metadata *_metadata = c->metadata;

	if (!rule_addr(c->v, addr, len) && !c->collect)
		SKIP(return, "addr= does not apply to %s sockets: file rules mediate them",
		     kind_name(c->v->kind));
}

/* addr=: the server's own address. */
static void check_rule_addr(struct ctx *c)
{
	const struct variant *v = c->v;
	char addr[128], ok[RULES_MAX], bad[RULES_MAX], full[RULES_MAX];
	char other[128];
	const char *local;

	addr[0] = '\0';
	skip_unless_addr(c, addr, sizeof(addr));
	if (!addr[0])
		return;
	label_of(other, sizeof(other), "other");
	/* An autobind name does not exist yet when bind() is checked. */
	local = v->kind == KIND_AUTOBIND ? "create, setopt, getopt, bind" :
					   "create, setopt, getopt";
	rules(full, sizeof(full), "  unix,\n");
	rules(ok, sizeof(ok), "  unix (%s),\n  unix addr=%s,\n", local, addr);
	rules(bad, sizeof(bad), "  unix (%s),\n  unix addr=@%s,\n", local,
	      other);
	if (v->kind == KIND_UNNAMED) {
		sub(c, "addr matches", full, ok, all_ok);
		sub(c, "addr differs", full, bad, denied(CLIENT, STEP_GETSOCKNAME));
		return;
	}
	sub(c, "addr matches", ok, full, all_ok);
	if (v->kind == KIND_AUTOBIND)
		sub(c, "addr differs", bad, full,
		    denied(SERVER, conn_type(v->type) ? STEP_LISTEN :
						       STEP_GETSOCKNAME));
	else
		sub(c, "addr differs", bad, full, denied(SERVER, STEP_BIND));
}

/* Where a client whose peer rules do not match the server is stopped. */
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

static void check_peer_addr(struct ctx *c, const char *good, const char *bad)
{
	char ok[RULES_MAX], ko[RULES_MAX], full[RULES_MAX];

	rules(full, sizeof(full), "  unix,\n");
	rules(ok, sizeof(ok), "%s  unix (connect, send, receive) peer=(addr=%s),\n",
	      peer_local, good);
	rules(ko, sizeof(ko), "%s  unix (connect, send, receive) peer=(addr=%s),\n",
	      peer_local, bad);
	sub(c, "peer addr matches", full, ok, all_ok);
	sub(c, "peer addr differs", full, ko, peer_mismatch(c->v));
}

/*
 * peer=(label=...): the server's exact profile, then the client's own, so
 * that a kernel matching the subject instead of the peer is caught.  A
 * socketpair's peer is the process itself: there the two swap.
 */
static void check_rule_peer_label(struct ctx *c)
{
	char srv[RULES_MAX], server[128], self[128], to_server[RULES_MAX];
	char to_self[RULES_MAX];
	bool pair = c->v->kind == KIND_UNNAMED;

	label_of(server, sizeof(server), "peer_server");
	label_of(self, sizeof(self), "peer_self");
	named_rules(srv, sizeof(srv), "peer_server", "  unix,\n");
	rules(to_server, sizeof(to_server),
	      "%s  unix (connect, send, receive) peer=(label=%s),\n",
	      peer_local, server);
	named_rules(to_self, sizeof(to_self), "peer_self",
		    "%s  unix (connect, send, receive) peer=(label=%s),\n",
		    peer_local, self);
	sub(c, "peer label matches", srv, pair ? to_self : to_server, all_ok);
	sub(c, "peer label differs", srv, pair ? to_server : to_self,
	    peer_mismatch(c->v));
}

/* peer=(addr=...): the server's address, then another one. */
static void check_rule_peer_addr(struct ctx *c)
{
	char addr[128], other[128], bad[140];

	addr[0] = '\0';
	skip_unless_addr(c, addr, sizeof(addr));
	if (!addr[0])
		return;
	label_of(other, sizeof(other), "other");
	snprintf(bad, sizeof(bad), "@%s", other);
	check_peer_addr(c, addr, bad);
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

static void file_deny_cases(struct ctx *c)
{
	char srv[RULES_MAX], cli[RULES_MAX], sock[108];
	const char *net = c->v->abi == AA_ABI_NEW ? "unix," : "network unix,";
	bool conn = conn_type(c->v->type);

	sock_name(sock, sizeof(sock));
	rules(srv, sizeof(srv), "  %s\n", net);
	rules(cli, sizeof(cli), "  %s\n  deny %s/%s rw,\n", net, run_dir, sock);
	/* OLD: file rules no longer apply to the connect or the send. */
	sub(c, "client denied rw on the socket path", srv, cli,
	    c->v->abi == AA_ABI_OLD ? all_ok :
	    denied(CLIENT, conn ? STEP_CONNECT : STEP_SENDTO));
}

static void each_type(struct ctx *c, enum sock_kind kind, check_fn *fn)
{
	with_variant(c, kind, SOCK_STREAM, fn);
	with_variant(c, kind, SOCK_DGRAM, fn);
	with_variant(c, kind, SOCK_SEQPACKET, fn);
}

/* (a) OLD ABI, "network unix," plus a file deny on the path: allowed. */
/* (d) NEW ABI, the same file deny denies connect and send. */
static void check_file_deny(struct ctx *c)
{
	each_type(c, KIND_PATHNAME, file_deny_cases);
}

static void receiver_cases(struct ctx *c)
{
	char srv[RULES_MAX], cli[RULES_MAX];

	if (c->v->abi == AA_ABI_NEW) {
		unix_perms_but(srv, sizeof(srv), "receive", NULL);
		rules(cli, sizeof(cli), "  unix,\n");
	} else {
		rules(srv, sizeof(srv), "  network unix,\n  deny network (receive) unix,\n");
		rules(cli, sizeof(cli), "  network unix,\n");
	}
	/* A socketpair's receiver is the sending process itself. */
	if (c->v->kind == KIND_UNNAMED)
		memcpy(cli, srv, sizeof(cli));
	sub(c, "receiver without receive", srv, cli,
	    env.have_v9_unix ? denied(CLIENT, STEP_SENDTO) :
	    denied(c->v->kind == KIND_UNNAMED ? CLIENT : SERVER, STEP_RECV));
}

/* (b) The receiver's profile is consulted at the sender's send. */
static void check_receiver_at_send(struct ctx *c)
{
	with_variant(c, KIND_ABSTRACT, SOCK_DGRAM, receiver_cases);
	with_variant(c, KIND_UNNAMED, SOCK_DGRAM, receiver_cases);
}

static void bind_cases(struct ctx *c)
{
	char srv[RULES_MAX], cli[RULES_MAX];
	const char *net = c->v->abi == AA_ABI_NEW ? "unix," : "network unix,";

	rules(cli, sizeof(cli), "  %s\n", net);
	rules(srv, sizeof(srv), "  %s\n  deny %s/* w,\n", net, run_dir);
	sub(c, "server denied w on the directory", srv, cli,
	    denied(SERVER, STEP_BIND));
}

/*
 * (e) Before the fix, OLD-ABI checks on pathname sockets went to file rules
 * only: the coarse network rules were not enforced on them.
 */
static void check_old_network_rules_on_paths(struct ctx *c)
{
	each_type(c, KIND_PATHNAME, check_each_permission);
}

/* (c) Binding to a path needs file "w" in both ABIs. */
static void check_bind_needs_w(struct ctx *c)
{
	each_type(c, KIND_PATHNAME, bind_cases);
}

static void load_policy(struct __test_metadata *_metadata);

/* SKIPs, with the reason, what this system cannot run. */
static void require(struct __test_metadata *_metadata, enum aa_abi abi,
		    bool confined)
{
	if (!env.enabled)
		SKIP(return, "%s", env.skip[AA_ABI_OLD]);
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

static void run_check(struct __test_metadata *_metadata, enum sock_kind kind,
		      int type, enum aa_abi abi, bool confined, check_fn *fn)
{
	struct variant v = {
		.abi = abi,
		.confined = confined,
		.kind = kind,
		.type = type,
	};
	struct ctx c = { .v = &v, .metadata = _metadata };

	require(_metadata, abi, confined);
	if (_metadata->exit_code == KSFT_SKIP)
		return;
	fn(&c);
	/* A check that ran nothing would pass without testing anything. */
	if (_metadata->exit_code != KSFT_SKIP)
		ASSERT_LT(0, c.subs);
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

/*
 * Commit 6456ccbd2ff7 ("apparmor: fix regression in fs based unix sockets
 * when using old abi"), v6.17-rc1: each check picks its own socket kinds.
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

TEST(fix_6456ccbd2ff7_e_old_abi_network_rules_apply_to_paths)
{
	run_check(_metadata, KIND_PATHNAME, SOCK_STREAM,
		  AA_ABI_OLD, true, check_old_network_rules_on_paths);
}

static check_fn *const old_checks[] = {
	check_allow_all, check_each_permission, check_rule_type,
	check_file_deny, check_receiver_at_send, check_bind_needs_w,
	check_old_network_rules_on_paths, check_one_side_unconfined,
};

static check_fn *const new_checks[] = {
	check_allow_all, check_each_permission, check_rule_type,
	check_rule_addr, check_rule_peer_label, check_rule_peer_addr,
	check_file_deny, check_receiver_at_send, check_bind_needs_w,
	check_one_side_unconfined,
};

/* Runs every check in collect mode: the profiles it needs, once each. */
static void collect_profiles(enum aa_abi abi)
{
	static const int types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET };
	check_fn *const *checks = abi == AA_ABI_NEW ? new_checks : old_checks;
	size_t n = abi == AA_ABI_NEW ? ARRAY_LEN(new_checks) :
				       ARRAY_LEN(old_checks);
	struct variant v = { .abi = abi, .confined = true };
	struct ctx c = { .v = &v, .collect = true };
	size_t i, t;

	for (v.kind = 0; v.kind < KIND_COUNT; v.kind++)
		for (t = 0; t < ARRAY_LEN(types); t++)
			for (v.type = types[t], i = 0; i < n; i++)
				checks[i](&c);
}

static void cleanup(void)
{
	if (getpid() != run_pid)
		return;
	if (policy) {
		aa_policy_unload(policy);
		aa_policy_free(policy);
	}
	rmdir(run_dir);
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
	       nr_profiles, t1.tv_sec - t0.tv_sec +
	       (t1.tv_nsec - t0.tv_nsec) / 1e9);
}

/* Generates every profile the checks need; compiled on first use. */
static int prepare_policy(void)
{
	int abi;

	load = mmap(NULL, sizeof(*load), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (load == MAP_FAILED)
		return -errno;
	memset(load, 0, sizeof(*load));
	snprintf(run_dir, sizeof(run_dir), "/tmp/%s.%d", AA_PROFILE_PREFIX,
		 run_pid);
	if (env.skip[AA_ABI_OLD][0])
		return 0;
	aa_cleanup_stale("/tmp", AA_PROFILE_PREFIX);
	if (mkdir(run_dir, 0700)) {
		snprintf(load->error, sizeof(load->error), "mkdir %s: %s",
			 run_dir, strerror(errno));
		load->tried = true;
		return 0;
	}
	policy = aa_policy_new(run_dir, AA_PROFILE_PREFIX);
	if (!policy)
		return -ENOMEM;
	atexit(cleanup);
	for (abi = 0; abi < AA_ABI_COUNT; abi++)
		if (!env.skip[abi][0])
			collect_profiles(abi);
	return 0;
}

int main(int argc, char **argv)
{
	run_pid = getpid();
	aa_env_probe(&env);
	if (!only_listing(argc, argv) && prepare_policy())
		ksft_exit_fail_msg("cannot prepare policy: %s\n", strerror(errno));
	return test_harness_run(argc, argv);
}
