// SPDX-License-Identifier: GPL-2.0
/*
 * A random lane: seeded histories of AF_UNIX sockets, judged by history
 * independence.  AppArmor keeps labels on a socket to skip work (the
 * label it was made under, the labels it was last checked under, its
 * peer's), and a mistake in that bookkeeping makes a decision depend on
 * history the policy says does not matter.  That needs no model of the
 * rules to check: each case is a pair of worlds that differ only in such
 * history and end in the same operation, by a task under the same label
 * and the same policy, and the two outcomes must be the same.  The
 * outcome is the operation's errno (or where the socket was refused on
 * its way), and for a peer's refusal whether it was audited.
 *
 * The relations, a test each:
 * - prior_use: end 0 of a pair used by its creator under profile A (a
 *   random set of write, read and both flocks) before it reaches the
 *   task's label, or not used;
 * - route: the end reaches that label by change_profile of its creator,
 *   or by fork and a change in the child, an exec (inherited) or
 *   SCM_RIGHTS, or it is made there, under that label; most cases are
 *   three worlds (change_profile, fork, made there), each pair compared;
 * - label_path: the same stack A//&U put on by aa_stack_profile(), or by
 *   change_profile to "&U", or at an exec (aa_stack_onexec());
 * - peer_side: the peer, A holding end 1, uses its end (write, flocks),
 *   changes profile to U' or has A replaced by the same text, before the
 *   task's label change or after it;
 * - peer_replaced: the peer's socket made before its profile was replaced
 *   by another version (or removed), or after (unix_peer_tests.c's runs).
 * The label is a random profile U of a pool, or A//&U (by a random way
 * of stacking but for the label path).  U is drawn from a grammar: unix
 * rules (all, all but send or receive, none, type=, peer=(label=A),
 * addr=none with peer=(addr=none); the OLD ABI's has other subsets for
 * the last two)
 * times file rules on the run directory (rwk, rw, r).  The pair is a
 * socketpair, or has ends on paths, or one on a path and its peer on an
 * abstract name, of a random type; the operation is a random file or
 * socket operation.
 *
 * What the generator avoids, a sentence each:
 * - An unconfined creator: its sockets are delegated and never
 *   revalidated, so routes that check on the way legitimately differ.
 * - A read with nothing queued: two messages are queued before a read,
 *   whatever the world (unix_handoff.c).
 * - Comparing a route that revoked (exec) or dropped (SCM_RIGHTS) the
 *   end: that route performs its own check, asking read and write at
 *   once, where change_profile checks nothing, so only ends both routes
 *   delivered are compared; likewise an end the task's label may not
 *   make (or queue a message on, for a read) is not compared with one
 *   made under A.
 * - An end made there used first: its use would be under the task's
 *   label, not A's, so the end made under A is not used first either.
 * - An end made there under rules that refuse its peer something: the
 *   peer is then made under U too, not A, so a peer=(label=A) rule or a
 *   send that asks the peer's receive legitimately tells them apart.
 * - A creator refused its own warm-up: A allows every unix operation.
 * - The peer reading before the task's op: it would take what the task
 *   reads, so the peer only writes and locks.
 * - The errno's step for a peer: a connected dgram socket sends where a
 *   new one connects first, so only the errno is compared.
 *
 * Every case prints its seed: AA_HISTORY_SEED=<seed> with
 * AA_HISTORY_CASES=1 runs that case again exactly.  A FAIL prints both
 * worlds and their outcomes, shrunk to the smallest pair that still
 * differs.  A test runs cases for its budget (HISTORY_*MS), for
 * AA_HISTORY_SECONDS, or AA_HISTORY_CASES of them.
 */

#include "unix_handoff.h"
#include "unix_test.h"

typedef unsigned long long u64;

/*
 * Each test's default budget, in ms: the ten add 50 s.  prior_use and
 * route get more: they draw from the most histories, and a difference
 * found there so far needed a few draws in a hundred (a warm-up set and
 * a stack) or in a thousand (a lock on an end made there).
 */
#define HISTORY_MS 3000
#define HISTORY_PRIOR_USE_MS 6000
#define HISTORY_ROUTE_MS 10000
/* The harness's limit: AA_HISTORY_SECONDS is kept under it. */
#define HISTORY_TIMEOUT 900

/*
 * The profiles U of the pool the task's label is made of: a choice of
 * unix rules of the grammar both ABIs share (permission subsets, type=)
 * or the NEW ABI's alone (peer=(label=), addr= with peer=(addr=)), where
 * the OLD ABI gets other subsets instead, times a choice of file rules
 * on the run directory, where ends on paths are and locks are taken.
 */
enum hist_unix {
	U_ALL,
	U_NO_SEND,
	U_NO_RECEIVE,
	U_NO_UNIX,
	U_TYPE,		/* stream and seqpacket */
	U_PEER_A,	/* NEW: peer ops with A only; OLD: dgram only */
	U_UNNAMED,	/* NEW: peer ops between unnamed ends; OLD: none */
	U_UNIX_COUNT,
};

enum hist_file {
	F_RWK,
	F_RW,
	F_R,
	F_COUNT,
};

#define U_COUNT (U_UNIX_COUNT * F_COUNT)

static enum hist_unix hist_unix_of(unsigned int u)
{
	return u % U_UNIX_COUNT;
}

static enum hist_file hist_file_of(unsigned int u)
{
	return u / U_UNIX_COUNT;
}

static unsigned int hist_user(enum hist_unix un, enum hist_file f)
{
	return un + U_UNIX_COUNT * f;
}

static const char *const hist_unix_name[AA_ABI_COUNT][U_UNIX_COUNT] = {
	[AA_ABI_OLD] = {
		[U_ALL] = "network unix", [U_NO_SEND] = "all but send",
		[U_NO_RECEIVE] = "all but receive",
		[U_NO_UNIX] = "no unix rule",
		[U_TYPE] = "stream and seqpacket", [U_PEER_A] = "dgram",
		[U_UNNAMED] = "no peer ops",
	},
	[AA_ABI_NEW] = {
		[U_ALL] = "every unix op", [U_NO_SEND] = "all but send",
		[U_NO_RECEIVE] = "all but receive",
		[U_NO_UNIX] = "no unix rule", [U_TYPE] = "stream and seqpacket",
		[U_PEER_A] = "peer=(label=A)", [U_UNNAMED] = "addr=none peer=(addr=none)",
	},
};

static const char *const hist_file_perms[] = {
	[F_RWK] = "rwk", [F_RW] = "rw", [F_R] = "r",
};

/* U's description: "all but send, rw". */
static const char *hist_user_name(enum aa_abi abi, unsigned int u, char *buf,
				  size_t len)
{
	snprintf(buf, len, "%s, %s", hist_unix_name[abi][hist_unix_of(u)],
		 hist_file_perms[hist_file_of(u)]);
	return buf;
}

/* U's unix rules in @abi; @a is A's name, for peer=(label=). */
static void hist_unix_rules(struct prof *p, enum aa_abi abi,
			    enum hist_unix un, const char *a)
{
	bool nw = abi == AA_ABI_NEW;
	const char *const rule[U_UNIX_COUNT][2] = {
		[U_TYPE] = { "  network unix stream,\n  network unix seqpacket,\n",
			     "  unix type=stream,\n  unix type=seqpacket,\n" },
		[U_PEER_A] = { "  network unix dgram,\n", NULL },
		[U_UNNAMED] = {
			"  network (create, getattr, setattr, getopt, setopt, shutdown) unix,\n",
			PEER_LOCAL_RULES
			"  unix (connect, send, receive) addr=none peer=(addr=none),\n" },
	};

	if (un == U_PEER_A && nw)
		prof_add(p, "%s  unix (connect, send, receive) peer=(label=%s),\n",
			 PEER_LOCAL_RULES, a);
	else if (un == U_ALL)
		prof_add(p, "  %s\n", prof_allow_unix(abi));
	else if (un == U_NO_SEND || un == U_NO_RECEIVE)
		prof_unix_rules_but(p, abi, un == U_NO_SEND ? "send" : "receive");
	else if (un != U_NO_UNIX)
		prof_add(p, "%s", rule[un][nw]);
}

/*
 * One world of a handoff pair: how the end gets there, how the label is
 * put on, what A did on the end first.
 */
struct hist_world {
	enum handoff_how how;
	enum handoff_onto onto;
	unsigned int warm;
	/*
	 * No hand-off: the end is made under the task's label, and its
	 * change_profile to that label changes nothing.
	 */
	bool made_there;
	/* The peer's event comes after the task's label change. */
	bool peer_after;
};

/* The relations of handoff pairs: what their two worlds differ in. */
enum hist_rel {
	REL_PRIOR_USE,
	REL_ROUTE,
	REL_LABEL_PATH,
	REL_PEER_SIDE,
};

static const char *const hist_rel_name[] = {
	[REL_PRIOR_USE] = "prior_use",
	[REL_ROUTE] = "route",
	[REL_LABEL_PATH] = "label_path",
	[REL_PEER_SIDE] = "peer_side",
};

#define HIST_WORLDS 3

struct hist_case {
	u64 seed;
	enum handoff_shape shape;
	int type;
	enum handoff_op op;
	unsigned int user;	/* < U_COUNT */
	/* The peer's event, the same in both worlds but for its time. */
	enum handoff_peer peer;
	unsigned int peer_warm;
	unsigned int peer_user;	/* HPEER_CHANGE: to this U */
	/* Two worlds, or three for a route: each pair of them compared. */
	unsigned int worlds;
	struct hist_world w[HIST_WORLDS];
};

static const unsigned int hist_warm_ops[] = {
	HANDOFF_WARM(HOP_WRITE), HANDOFF_WARM(HOP_READ),
	HANDOFF_WARM(HOP_FLOCK_SH), HANDOFF_WARM(HOP_FLOCK_EX),
};

/*
 * The operations that reach what a socket keeps: aa_file_perm()'s
 * revalidation (sendmsg() and recvmsg() skip it; a peer's datagrams are
 * peer_replaced's).
 */
static const enum handoff_op hist_ops[] = {
	HOP_WRITE, HOP_READ, HOP_FLOCK_SH, HOP_FLOCK_EX, HOP_SENDMSG,
	HOP_RECVMSG,
};

static const enum handoff_shape hist_shapes[] = {
	HSHAPE_PAIR, HSHAPE_BOUND, HSHAPE_TO_BOUND, HSHAPE_FROM_BOUND,
};

static const int hist_types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET };

/* splitmix64: every case's draws come from its own seed. */
static u64 hist_next(u64 *s)
{
	u64 z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned int hist_pick(u64 *s, unsigned int n)
{
	return hist_next(s) % n;
}

/* The run's first seed, and how long or how many cases a test runs. */
static struct {
	bool init;
	u64 seed;
	long max_cases;	/* 0: by time */
	long ms;	/* 0: each test's default */
} hist_budget;

static void hist_budget_init(void)
{
	const char *seed = getenv("AA_HISTORY_SEED");
	const char *count = getenv("AA_HISTORY_CASES");
	const char *secs = getenv("AA_HISTORY_SECONDS");
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	hist_budget.seed = ((u64)t.tv_sec << 20) ^ t.tv_nsec ^ getpid();
	if (seed)
		hist_budget.seed = strtoull(seed, NULL, 0);
	hist_budget.max_cases = count ? strtol(count, NULL, 0) : 0;
	hist_budget.ms = secs ? strtol(secs, NULL, 0) * 1000 : 0;
	if (hist_budget.ms < 0 || hist_budget.ms > HISTORY_TIMEOUT * 2000 / 3)
		hist_budget.ms = 0;
	hist_budget.init = true;
}

/*
 * The label a world's end reaches, A//&U by one of the ways of
 * stacking: aa_stack_profile() or change_profile to "&U" by its
 * creator, or aa_stack_onexec() at an exec.
 */
static const struct hist_world hist_stack_ways[] = {
	{ .how = HANDOFF_CHANGE, .onto = ONTO_STACK },
	{ .how = HANDOFF_CHANGE, .onto = ONTO_CHANGE_STACK },
	{ .how = HANDOFF_EXEC, .onto = ONTO_STACK },
};

/* A handoff pair of relation @rel, from @seed. */
static void hist_gen(struct hist_case *hc, u64 seed, enum hist_rel rel)
{
	static const enum handoff_how moved[] = {
		HANDOFF_FORK, HANDOFF_EXEC, HANDOFF_PASS,
	};
	static const enum handoff_how any[] = {
		HANDOFF_CHANGE, HANDOFF_FORK, HANDOFF_EXEC, HANDOFF_PASS,
	};
	u64 s = seed;
	unsigned int warm = 0;
	size_t i;

	memset(hc, 0, sizeof(*hc));
	hc->seed = seed;
	hc->worlds = 2;
	hc->shape = hist_shapes[hist_pick(&s, ARRAY_SIZE(hist_shapes))];
	hc->type = hist_types[hist_pick(&s, ARRAY_SIZE(hist_types))];
	hc->op = hist_ops[hist_pick(&s, ARRAY_SIZE(hist_ops))];
	hc->user = hist_pick(&s, U_COUNT);
	for (i = 0; i < ARRAY_SIZE(hist_warm_ops); i++)
		if (hist_pick(&s, 2))
			warm |= hist_warm_ops[i];
	switch (rel) {
	case REL_PRIOR_USE:
		hc->w[0].how = any[hist_pick(&s, ARRAY_SIZE(any))];
		/* change_profile to "&U" is a way of the creator's own change. */
		hc->w[0].onto = hist_pick(&s, hc->w[0].how == HANDOFF_CHANGE ?
					  3 : 2);
		hc->w[1] = hc->w[0];
		hc->w[1].warm = warm ?: HANDOFF_WARM(hc->op == HOP_READ ?
						     HOP_READ : HOP_WRITE);
		break;
	case REL_ROUTE:
		hc->w[0].onto = hist_pick(&s, 2);
		hc->w[0].warm = warm;
		hc->w[1] = hc->w[0];
		hc->w[0].how = HANDOFF_CHANGE;
		/*
		 * A quarter of the time a random route after A's use, else
		 * three unused ends: changed, forked, made there, where a
		 * check the other routes skip shows twice; never made there
		 * under rules that refuse the peer, then made under U too,
		 * what A's peer was granted.
		 */
		if (!hist_pick(&s, 4) || hist_unix_of(hc->user) == U_PEER_A ||
		    hist_unix_of(hc->user) == U_NO_RECEIVE) {
			hc->w[1].how = moved[hist_pick(&s, ARRAY_SIZE(moved))];
			break;
		}
		/* Made there, it was never used under A. */
		hc->worlds = 3;
		hc->w[0].warm = 0;
		hc->w[1] = hc->w[0];
		hc->w[1].how = HANDOFF_FORK;
		hc->w[2] = hc->w[0];
		hc->w[2].made_there = true;
		break;
	case REL_LABEL_PATH:
		hc->w[0] = hist_stack_ways[0];
		hc->w[1] = hist_stack_ways[1 + hist_pick(&s, 2)];
		hc->w[0].warm = warm;
		hc->w[1].warm = warm;
		break;
	case REL_PEER_SIDE:
		hc->w[0].how = HANDOFF_FORK;
		hc->w[0].onto = hist_pick(&s, ONTO_COUNT);
		hc->w[0].warm = warm;
		hc->w[1] = hc->w[0];
		hc->w[1].peer_after = true;
		hc->peer = HPEER_USE + hist_pick(&s, HPEER_COUNT - HPEER_USE);
		hc->peer_user = hist_pick(&s, U_COUNT);
		for (i = 0; i < ARRAY_SIZE(hist_warm_ops); i++)
			if (hist_warm_ops[i] != HANDOFF_WARM(HOP_READ) &&
			    hist_pick(&s, 2))
				hc->peer_warm |= hist_warm_ops[i];
		hc->peer_warm = hc->peer_warm ?: HANDOFF_WARM(HOP_WRITE);
		break;
	}
}

static const char *hist_onto_name(enum handoff_onto onto)
{
	return onto == ONTO_PROFILE ? "change_profile to U" :
	       onto == ONTO_STACK ? "aa_stack_profile(U): A//&U" :
	       "change_profile to &U: A//&U";
}

static void hist_warm_str(unsigned int warm, char *buf, size_t len)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(hist_ops) && n < len; i++)
		if (warm & HANDOFF_WARM(hist_ops[i]))
			n += snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
				      handoff_op_name(hist_ops[i]));
	if (!buf[0])
		snprintf(buf, len, "nothing");
}

/* The peer's event: "A does write on end 1". */
static void hist_peer_str(const struct hist_case *hc, enum aa_abi abi,
			  char *buf, size_t len)
{
	char what[64];

	if (hc->peer == HPEER_USE) {
		hist_warm_str(hc->peer_warm, what, sizeof(what));
		snprintf(buf, len, "; A does %s on end 1", what);
	} else if (hc->peer == HPEER_CHANGE) {
		snprintf(buf, len, "; A, holding end 1, changes profile to U' %s",
			 hist_user_name(abi, hc->peer_user, what, sizeof(what)));
	} else if (hc->peer == HPEER_REPLACE) {
		snprintf(buf, len, "; A's profile is replaced by the same text");
	} else {
		buf[0] = '\0';
	}
}

/* A world's events, in the order they happen. */
static void hist_world_str(const struct hist_case *hc, enum aa_abi abi,
			   int w, char *buf, size_t len)
{
	char warm[64], user[64], peer[128];
	bool after = hc->w[w].peer_after;

	hist_warm_str(hc->w[w].warm, warm, sizeof(warm));
	hist_user_name(abi, hc->user, user, sizeof(user));
	hist_peer_str(hc, abi, peer, sizeof(peer));
	if (hc->w[w].made_there) {
		snprintf(buf, len, "the task, under %s, U %s, makes a %s %s; %s on end 0",
			 hist_onto_name(hc->w[w].onto), user, type_name(hc->type),
			 handoff_shape_name(hc->shape),
			 handoff_op_name(hc->op));
		return;
	}
	snprintf(buf, len,
		 "A makes a %s %s; A does %s on end 0%s; %s; by %s, U %s%s; %s on end 0",
		 type_name(hc->type), handoff_shape_name(hc->shape), warm,
		 after ? "" : peer, handoff_how_name(hc->w[w].how),
		 hist_onto_name(hc->w[w].onto), user, after ? peer : "",
		 handoff_op_name(hc->op));
}

struct hist_profs {
	const char *a;
	/* A's text compiled, for its replacement by the same text. */
	char a_blob[NAME_MAX_LEN + 16];
	const char *u[U_COUNT];
	char stack[U_COUNT][2 * NAME_MAX_LEN + 4];
};

/*
 * A, the pool and each A//&U, registered in collect mode; and else A
 * compiled for its replacement.
 */
static bool hist_names(struct ctx *c, struct hist_profs *hp)
{
	const char *abi = c->v->abi == AA_ABI_NEW ? "new" : "old";
	const char *dir = aa_policy_dir(policy);
	char aname[32], uname[U_COUNT][32], a_full[NAME_MAX_LEN], err[256];
	struct prof a = { .name = aname }, u[U_COUNT];
	unsigned int i;
	int ret;

	/* A changes profile, and maps and runs this program in an exec. */
	snprintf(aname, sizeof(aname), "hist_a_%s", abi);
	run_name(a_full, sizeof(a_full), aname);
	lacking(&a, c->v->abi, NULL);
	prof_add(&a, "  /proc/*/attr/{apparmor/,}current w,\n  change_profile,\n");
	prof_add(&a, "  /** rmix,\n  %s/* k,\n", dir);
	hp->a = registered(c, &a);
	for (i = 0; i < U_COUNT; i++) {
		snprintf(uname[i], sizeof(uname[i]), "hist_u_%u_%s", i, abi);
		u[i] = (struct prof){ .name = uname[i] };
		prof_base(&u[i], dir, hist_file_perms[hist_file_of(i)]);
		hist_unix_rules(&u[i], c->v->abi, hist_unix_of(i), a_full);
		/* A change to the label the task has already changes nothing. */
		prof_add(&u[i], "  /** rm,\n  change_profile,\n");
		prof_add(&u[i], "  /proc/*/attr/{apparmor/,}current w,\n");
		hp->u[i] = registered(c, &u[i]);
		if (!stack_of(c, &a, &u[i], hp->stack[i], sizeof(hp->stack[i])))
			hp->u[i] = NULL;
	}
	for (i = 0; i < U_COUNT && hp->a; i++)
		if (!hp->u[i])
			hp->a = NULL;
	if (c->collect && !hp->a)
		ksft_exit_fail_msg("cannot register more profiles\n");
	if (c->collect || !hp->a)
		return hp->a;
	snprintf(hp->a_blob, sizeof(hp->a_blob), "%s.bin", aname);
	ret = aa_policy_compile(policy, env.parser, c->v->abi, hp->a, a.text,
				hp->a_blob, err, sizeof(err));
	if (ret)
		ksft_print_msg("history: cannot compile A: %s\n", err);
	return !ret;
}

/* HPEER_REPLACE: A replaced by the same text. */
static int hist_replace_a(void *arg)
{
	const struct hist_profs *hp = arg;

	return aa_policy_replace(policy, hp->a_blob);
}

/* Runs world @w of @hc; 0 with @out filled, or -errno. */
static int hist_run(const struct hist_profs *hp, const struct hist_case *hc,
		    int w, struct outcome *out)
{
	char names[2][NAME_MAX_LEN], path[2][PATH_MAX];
	struct handoff h = {
		.how = hc->w[w].how,
		.shape = hc->shape,
		.type = hc->type,
		.path = { path[0], path[1] },
		.creator = !hc->w[w].made_there ? hp->a :
			   hc->w[w].onto == ONTO_PROFILE ? hp->u[hc->user] :
			   hp->stack[hc->user],
		.user = hp->u[hc->user],
		.onto = hc->w[w].onto,
		.label = hc->w[w].onto == ONTO_PROFILE ? NULL :
			 hp->stack[hc->user],
		.op = hc->op,
		.warm = hc->w[w].warm,
		.peer = hc->peer,
		.peer_after = hc->w[w].peer_after,
		.peer_warm = hc->peer_warm,
		.peer_label = hp->u[hc->peer_user],
		.replace = hist_replace_a,
		.arg = (void *)hp,
	};
	int i, ret;

	for (i = 0; i < 2; i++) {
		run_name(names[i], sizeof(names[i]), i ? "hist1" : "hist0");
		snprintf(path[i], sizeof(path[i]), "%s/%s",
			 aa_policy_dir(policy), names[i]);
		unlink(path[i]);
	}
	/* The peer's end on an abstract name. */
	if (hc->shape == HSHAPE_FROM_BOUND)
		h.path[1] = names[1];
	ret = handoff_run(&h, out);
	for (i = 0; i < 2; i++)
		unlink(path[i]);
	return ret;
}

/*
 * The route's own check refused the end on its way (an exec revoked it,
 * a receipt dropped it), or the task could not make it there: not
 * compared.
 */
static bool hist_not_delivered(const struct outcome *o)
{
	return o->fault == FAULT_NOT_INSTALLED ||
	       (o->step < STEP_HANDOFF && (o->err || o->fault));
}

/*
 * Runs every world: 1 if two differ, 0 if not (or, but for prior use,
 * where a world was not delivered the end), -errno if a run could not
 * be set up.  On a difference @hc and @got keep the two worlds that
 * differed, as worlds 1 and 2, for the shrinking and the report.
 */
static int hist_differ(const struct hist_profs *hp, struct hist_case *hc,
		       enum hist_rel rel, struct outcome got[HIST_WORLDS])
{
	unsigned int i, j;
	int ret;

	for (i = 0; i < hc->worlds; i++) {
		ret = hist_run(hp, hc, i, &got[i]);
		if (ret)
			return ret;
	}
	for (i = 0; i < hc->worlds; i++) {
		for (j = i + 1; j < hc->worlds; j++) {
			if (rel != REL_PRIOR_USE &&
			    (hist_not_delivered(&got[i]) ||
			     hist_not_delivered(&got[j])))
				continue;
			if (outcome_eq(&got[i], &got[j]))
				continue;
			hc->w[0] = hc->w[i];
			hc->w[1] = hc->w[j];
			got[0] = got[i];
			got[1] = got[j];
			hc->worlds = 2;
			return 1;
		}
	}
	return 0;
}

/* @t replaces @hc when its pair still differs. */
static void hist_try(const struct hist_profs *hp, struct hist_case *hc,
		     const struct hist_case *t, enum hist_rel rel,
		     struct outcome got[HIST_WORLDS])
{
	struct outcome g[HIST_WORLDS];
	struct hist_case c = *t;

	if (memcmp(t, hc, sizeof(*t)) && hist_differ(hp, &c, rel, g) == 1) {
		*hc = c;
		memcpy(got, g, sizeof(g));
	}
}

/*
 * The smallest pair that still differs, one change at a time: each
 * operation of the warm-up dropped (of world 2's for prior use, of both
 * otherwise), and of the peer's use; a socketpair; (but for the label
 * path) a plain change_profile; then U's unix rules and its file rules,
 * and the peer's U', each the pool's first choice.
 */
static void hist_shrink(const struct hist_profs *hp, struct hist_case *hc,
			enum hist_rel rel, struct outcome got[HIST_WORLDS])
{
	struct hist_case t;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(hist_warm_ops); i++) {
		t = *hc;
		t.w[1].warm &= ~hist_warm_ops[i];
		if (rel != REL_PRIOR_USE)
			t.w[0].warm = t.w[1].warm;
		else if (!t.w[1].warm)
			continue;
		hist_try(hp, hc, &t, rel, got);
	}
	for (i = 0; i < ARRAY_SIZE(hist_warm_ops); i++) {
		t = *hc;
		t.peer_warm &= ~hist_warm_ops[i];
		if (t.peer == HPEER_USE && t.peer_warm)
			hist_try(hp, hc, &t, rel, got);
	}
	t = *hc;
	t.shape = HSHAPE_PAIR;
	hist_try(hp, hc, &t, rel, got);
	if (rel != REL_LABEL_PATH) {
		t = *hc;
		t.w[0].onto = ONTO_PROFILE;
		t.w[1].onto = ONTO_PROFILE;
		hist_try(hp, hc, &t, rel, got);
	}
	t = *hc;
	t.user = hist_user(U_ALL, hist_file_of(t.user));
	hist_try(hp, hc, &t, rel, got);
	t = *hc;
	t.user = hist_user(hist_unix_of(t.user), F_RWK);
	hist_try(hp, hc, &t, rel, got);
	t = *hc;
	t.peer_user = 0;
	if (t.peer == HPEER_CHANGE)
		hist_try(hp, hc, &t, rel, got);
}

/* Runs cases until the budget is spent; @fn runs one and says if it held. */
typedef bool hist_case_fn(struct ctx *c, u64 seed, int n, void *arg);

static void hist_loop(struct ctx *c, const char *rel, long ms,
		      hist_case_fn *fn, void *arg)
{
	struct __test_metadata *_metadata = c->metadata;
	u64 state = hist_budget.seed, seed;
	struct timespec t0;
	int n, failed = 0;

	ms = hist_budget.ms ?: ms;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ksft_print_msg("history %s: first seed %#llx\n", rel, state);
	for (n = 0;; n++) {
		if (hist_budget.max_cases && n >= hist_budget.max_cases)
			break;
		if (!hist_budget.max_cases && ms_since(&t0) >= ms)
			break;
		/* The first case is the seed itself, to re-run one. */
		seed = n ? hist_next(&state) : state;
		c->subs++;
		if (!fn(c, seed, n, arg))
			failed++;
		if (_metadata->exit_code == KSFT_SKIP)
			return;
	}
	ksft_print_msg("history %s: %d cases, %d differed\n", rel, n, failed);
}

struct hist_arg {
	const struct hist_profs *hp;
	enum hist_rel rel;
};

static bool hist_case(struct ctx *c, u64 seed, int n, void *arg)
{
	struct __test_metadata *_metadata = c->metadata;
	const struct hist_profs *hp = ((struct hist_arg *)arg)->hp;
	enum hist_rel rel = ((struct hist_arg *)arg)->rel;
	char w0[512], w1[512], o0[128], o1[128];
	struct outcome got[HIST_WORLDS];
	struct hist_case hc;
	int ret;

	hist_gen(&hc, seed, rel);
	ret = hist_differ(hp, &hc, rel, got);
	ksft_print_msg("history %s case %d seed %#llx: %s\n",
		       hist_rel_name[rel], n, seed,
		       ret < 0 ? "not run" : ret ? "DIFFER" : "same");
	EXPECT_LE(0, ret) TH_LOG("seed %#llx: cannot run: %s", seed,
				 strerror(-ret));
	if (ret != 1)
		return true;
	hist_shrink(hp, &hc, rel, got);
	hist_world_str(&hc, c->v->abi, 0, w0, sizeof(w0));
	hist_world_str(&hc, c->v->abi, 1, w1, sizeof(w1));
	EXPECT_TRUE(false) {
		TH_LOG("seed %#llx (%s ABI), shrunk: world 1: %s: %s; world 2: %s: %s",
		       seed, c->v->abi == AA_ABI_NEW ? "NEW" : "OLD", w0,
		       outcome_str(&got[0], o0, sizeof(o0)), w1,
		       outcome_str(&got[1], o1, sizeof(o1)));
	}
	return false;
}

static void check_hist(struct ctx *c, enum hist_rel rel)
{
	struct hist_profs hp;
	struct hist_arg arg = { &hp, rel };

	if (!hist_names(c, &hp) || c->collect)
		return;
	hist_loop(c, hist_rel_name[rel],
		  rel == REL_ROUTE ? HISTORY_ROUTE_MS :
		  rel == REL_PRIOR_USE ? HISTORY_PRIOR_USE_MS : HISTORY_MS,
		  hist_case, &arg);
}

static void check_hist_prior_use(struct ctx *c)
{
	check_hist(c, REL_PRIOR_USE);
}

static void check_hist_route(struct ctx *c)
{
	check_hist(c, REL_ROUTE);
}

static void check_hist_label_path(struct ctx *c)
{
	check_hist(c, REL_LABEL_PATH);
}

static void check_hist_peer_side(struct ctx *c)
{
	check_hist(c, REL_PEER_SIDE);
}

/* The peer's profile: unix_peer_tests.c's runs, with random versions. */
struct hist_peer {
	struct peer_profs pp;
	int afd;
	struct peer_shared *sh;
};

static const char *hist_version_name(int v)
{
	return v == PV_COUNT ? "removed" : pv_name[v];
}

/* 1 if R's refusal of S's next operation was audited, 0 if not. */
static int hist_peer_audited(struct hist_peer *hpr, const struct peer_row *row)
{
	char rec[4096];

	return peer_audited(hpr->afd, &hpr->pp, peer_op_name(row), rec,
			    sizeof(rec));
}

static bool hist_peer_case(struct ctx *c, u64 seed, int n, void *arg)
{
	struct __test_metadata *_metadata = c->metadata;
	struct hist_peer *hpr = arg;
	const struct peer_row *row;
	struct outcome self, *op = hpr->sh->op;
	char o[PEER_OPS][128];
	struct outcome ok = { .step = STEP_DONE };
	int v2, ret, aud[PEER_OPS] = { 0 }, aud_err = 0, i;
	enum peer_version v1;
	u64 s = seed;
	bool same;

	row = &peer_rows[hist_pick(&s, ARRAY_SIZE(peer_rows))];
	v1 = hist_pick(&s, PV_COUNT);
	v2 = hist_pick(&s, PV_COUNT + 1);
	ret = peer_world(&hpr->pp, row, v1, v2, hpr->sh, &self);
	for (i = 0; i < PEER_OPS && !ret && hpr->sh->s.step == STEP_DONE; i++)
		aud[i] = hist_peer_audited(hpr, row);
	same = op[PEER_OLD].err == op[PEER_NEW].err &&
	       op[PEER_OLD].fault == op[PEER_NEW].fault &&
	       aud[PEER_OLD] == aud[PEER_NEW];
	ksft_print_msg("history peer_replaced case %d seed %#llx: %s\n",
		       n, seed, ret ? "not run" : same ? "same" : "DIFFER");
	EXPECT_EQ(0, ret) TH_LOG("seed %#llx: R's profile: %s", seed,
				 strerror(-ret));
	expect_outcome(_metadata, "the run", "the test", ok, &self);
	expect_outcome(_metadata, "the run", "R", ok, &hpr->sh->r);
	expect_outcome(_metadata, "the run", "S", ok, &hpr->sh->s);
	for (i = 0; i < PEER_OPS; i++) {
		if (aud[i] < 0)
			aud_err = aud[i];
	}
	EXPECT_EQ(0, aud_err) {
		TH_LOG("seed %#llx: S's getsockopt() refusal not audited: %s",
		       seed, strerror(-aud_err));
	}
	if (ret || same)
		return true;
	for (i = 0; i < PEER_OPS; i++)
		outcome_str(&op[i], o[i], sizeof(o[i]));
	EXPECT_TRUE(false) {
		TH_LOG("seed %#llx (%s ABI): R under version %s binds A (a %s socket); "
		       "S uses A: %s%s; R becomes %s and binds B; "
		       "world 1: S uses A: %s%s; world 2: S uses B: %s%s (%s)",
		       seed, c->v->abi == AA_ABI_NEW ? "NEW" : "OLD",
		       pv_name[v1],
		       row->kind == KIND_ABSTRACT ? "abstract" : "pathname",
		       o[PEER_BEFORE], aud[PEER_BEFORE] == 1 ? ", audited" : "",
		       hist_version_name(v2), o[PEER_OLD],
		       aud[PEER_OLD] == 1 ? ", audited" : "", o[PEER_NEW],
		       aud[PEER_NEW] == 1 ? ", audited" : "", row->why);
	}
	return false;
}

static void check_hist_peer(struct ctx *c)
{
	struct __test_metadata *_metadata = c->metadata;
	struct hist_peer hpr;

	hpr.afd = peer_begin(c, &hpr.pp);
	if (hpr.afd < 0)
		return;
	hpr.sh = shared_alloc(sizeof(*hpr.sh));
	EXPECT_NE(NULL, hpr.sh);
	if (hpr.sh) {
		hist_loop(c, "peer_replaced", HISTORY_MS, hist_peer_case,
			  &hpr);
		shared_free(hpr.sh, sizeof(*hpr.sh));
	}
	peer_end(c, &hpr.pp, hpr.afd);
}

/* clang-format off */
FIXTURE(history) {};

FIXTURE_VARIANT(history) {
	enum aa_abi abi;
};

FIXTURE_SETUP(history) {}

FIXTURE_TEARDOWN(history) {}

FIXTURE_VARIANT_ADD(history, old_abi) {
	.abi = AA_ABI_OLD,
};

FIXTURE_VARIANT_ADD(history, new_abi) {
	.abi = AA_ABI_NEW,
};

/* clang-format on */

static void run_hist(struct __test_metadata *_metadata, enum aa_abi abi,
		     check_fn *fn)
{
	if (env.enabled && !env.have_v9_unix)
		SKIP(return, "%s",
		     "kernel without AppArmor network_v9/af_unix (6.17+): the labels these histories keep are not kept");
	if (!hist_budget.init)
		hist_budget_init();
	run_abi(_metadata, abi, fn);
}

TEST_F_TIMEOUT(history, prior_use, HISTORY_TIMEOUT)
{
	run_hist(_metadata, variant->abi, check_hist_prior_use);
}

TEST_F_TIMEOUT(history, route, HISTORY_TIMEOUT)
{
	run_hist(_metadata, variant->abi, check_hist_route);
}

TEST_F_TIMEOUT(history, label_path, HISTORY_TIMEOUT)
{
	run_hist(_metadata, variant->abi, check_hist_label_path);
}

TEST_F_TIMEOUT(history, peer_side, HISTORY_TIMEOUT)
{
	run_hist(_metadata, variant->abi, check_hist_peer_side);
}

TEST_F_TIMEOUT(history, peer_replaced, HISTORY_TIMEOUT)
{
	run_hist(_metadata, variant->abi, check_hist_peer);
}

static check_fn *const history_checks_of_abi[] = {
	check_hist_prior_use,
};

/* What the history lane registers, by ABI (the peer's: unix_peer_tests.c). */
static const struct checks history_checks[AA_ABI_COUNT] = {
	[AA_ABI_OLD] = { history_checks_of_abi,
			 ARRAY_SIZE(history_checks_of_abi) },
	[AA_ABI_NEW] = { history_checks_of_abi,
			 ARRAY_SIZE(history_checks_of_abi) },
};
