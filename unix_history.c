// SPDX-License-Identifier: GPL-2.0
/*
 * The random lane's generator (the lane: unix_history_tests.c): the
 * grammar of the profiles U, and a case's worlds drawn from a seed.  The
 * pair is a socketpair, or has both ends on paths or on abstract names,
 * or one on a path and its peer on an abstract name, or one not bound
 * and its peer on a path, of a random type; the operation is a random
 * file or socket operation.  A sixth of the cases, end 0 is a listener
 * instead, on a path or an abstract name, end 1's connection waiting on
 * it: the operation is then accept() or a lock.
 *
 * What the generator avoids, a sentence each, with the clause of
 * SEMANTICS that makes two worlds legitimately differ, or "(test)" where
 * the test itself could not tell them apart:
 * - An unconfined creator [deleg], but between policies (one route): its
 *   sockets are delegated and never revalidated, so routes that check on
 *   the way legitimately differ.
 * - A read with nothing queued (test): two messages are queued before a read,
 *   whatever the world (unix_handoff.c).
 * - Comparing the operation of a route that revoked (exec) or dropped
 *   (SCM_RIGHTS) the end with one that did not [carry]: that route
 *   performs its own check, asking read and write at once, where
 *   change_profile checks nothing; the lane's judge compares its delivery
 *   instead, with the change_profile world's write and read.  An end the
 *   task's label may not make (or queue a message on, for a read) is not
 *   compared with one made under A.
 * - An end made there used first [label]: its use would be under the task's
 *   label, not A's, so the end made under A is not used first either.
 * - An end made there under rules that refuse its peer something [peer]: the
 *   peer is then made under U too, not A, so a peer=(label=A) rule or a
 *   send that asks the peer's receive legitimately tells them apart.
 * - A creator refused its own warm-up (test): A allows every unix operation.
 * - The peer reading a message (test): what end 1 holds is the task's, for
 *   the check, so the peer reads end 1 where nothing is queued, without
 *   waiting (read() and recv()).
 * - A peer's event around an exec [carry]: the exec checks end 0 at the
 *   label change itself, with the peer as it is then, so no event can
 *   come after the one and before the other (see the next); the task
 *   has end 0 by a fork or SCM_RIGHTS.
 * - The peer's event between the receipt of end 0 and its use [carry]: the
 *   receipt checks the end with the peer it has then, and a closed peer
 *   is none (no path to check), so the task receives end 0 after the
 *   peer's event in both worlds.
 * - A listener's peer event (test): end 1 waits to be accepted, so
 *   peer_side has no listener.
 * - A listener's reads and writes (test): it has no data, so it is used
 *   by a lock alone, before the operation and at it (or accept()).
 * - The errno's step for a peer [send]: a connected dgram socket sends where a
 *   new one connects first, so only the errno is compared.
 * - A dgram pair with both ends on abstract names, its ends joined by
 *   connect() (test): a kernel without "apparmor: fix NULL ctx->peer derefs in
 *   unix socket ctx updates" (7.2.13) oopses when it revalidates one and
 *   locks up after, ending the collection; unix_fixes_test's
 *   fix_update_peer_ctx_* test that apart, so such a case takes a path
 *   for end 0.
 */

#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "unix_core.h"
#include "unix_history.h"

enum hist_unix hist_unix_of(unsigned int u)
{
	return u % U_UNIX_COUNT;
}

enum hist_file hist_file_of(unsigned int u)
{
	return u / U_UNIX_COUNT;
}

unsigned int hist_user(enum hist_unix un, enum hist_file f)
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

const char *const hist_rel_name[] = {
	[REL_PRIOR_USE] = "prior_use",
	[REL_ROUTE] = "route",
	[REL_LABEL_PATH] = "label_path",
	[REL_PEER_SIDE] = "peer_side",
	[REL_EQUIV] = "equivalent_user",
	[REL_WIDER] = "wider_user",
	[REL_COMPLAIN] = "complain_user",
	[REL_CONJ] = "stacked_users",
	[REL_OWNER] = "owner_user",
	[REL_PEER_CONJ] = "stacked_peers",
	[REL_OTHER_ABI] = "other_abi_user",
	[REL_ADDR] = "address_user",
};

const char *hist_file_perms(unsigned int u)
{
	static const char *const perms[] = {
		[F_RWK] = "rwk", [F_RW] = "rw", [F_R] = "r", [F_W] = "w",
	};

	return perms[hist_file_of(u)];
}

const char *hist_user_name(enum aa_abi abi, unsigned int u, char *buf,
			   size_t len)
{
	snprintf(buf, len, "%s, %s", hist_unix_name[abi][hist_unix_of(u)],
		 hist_file_perms(u));
	return buf;
}

void hist_unix_rules(struct prof *p, enum aa_abi abi, enum hist_unix un,
		     const char *a)
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

bool hist_exec_rule(unsigned int u)
{
	return hist_file_of(u) == F_RWK;
}

const unsigned int hist_warm_ops[HIST_WARM_OPS] = {
	HANDOFF_WARM(HOP_WRITE), HANDOFF_WARM(HOP_READ),
	HANDOFF_WARM(HOP_FLOCK_SH), HANDOFF_WARM(HOP_FLOCK_EX),
};

/*
 * The operations that reach what a socket keeps: aa_file_perm()'s
 * revalidation, by read() and write(), readv() and writev(), splice(),
 * flock() and io_uring's READ and WRITE, the last two only where the
 * kernel has io_uring (sendmsg() and recvmsg() skip it; a peer's
 * datagrams are peer_replaced's).  The first six are drawn three times
 * in four: the other ways of reading and writing reach the same check,
 * and a default budget must still find what the first six find.
 */
#define HIST_CORE_OPS 6

static const enum handoff_op hist_ops[] = {
	HOP_WRITE, HOP_READ, HOP_FLOCK_SH, HOP_FLOCK_EX, HOP_SENDMSG,
	HOP_RECVMSG, HOP_WRITEV, HOP_READV, HOP_SPLICE_TO, HOP_SPLICE_FROM,
	HOP_URING_WRITE, HOP_URING_READ,
};

/* Set once by the lane: whether io_uring's ops can be drawn. */
bool hist_have_uring;

static const enum handoff_shape hist_shapes[] = {
	HSHAPE_PAIR, HSHAPE_BOUND, HSHAPE_TO_BOUND, HSHAPE_FROM_BOUND,
	HSHAPE_ABSTRACT,
};

static const int hist_types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET };

/* splitmix64: every case's draws come from its own seed. */
u64 hist_next(u64 *s)
{
	u64 z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

unsigned int hist_pick(u64 *s, unsigned int n)
{
	return hist_next(s) % n;
}

/*
 * The label a world's end reaches, A//&U by one of the ways of
 * stacking: aa_stack_profile(), change_profile to "&U" or to "A//&U" by
 * its creator, or at an exec aa_stack_onexec(), a change_onexec() to
 * "A//&U" or A's exec rule (pix -> &U).
 */
static const struct hist_world hist_stack_ways[] = {
	{ .how = HANDOFF_CHANGE, .onto = ONTO_STACK },
	{ .how = HANDOFF_CHANGE, .onto = ONTO_CHANGE_STACK },
	{ .how = HANDOFF_CHANGE, .onto = ONTO_NAMED },
	{ .how = HANDOFF_EXEC, .onto = ONTO_STACK },
	{ .how = HANDOFF_EXEC, .onto = ONTO_NAMED },
	{ .how = HANDOFF_EXEC, .onto = ONTO_RULE },
};

/*
 * An exec into U alone by change_onexec, or half the time by A's px rule
 * for a link U attaches to: the same label by a path of its own.
 */
static enum handoff_onto hist_onto_alone(const struct hist_world *w, u64 *s)
{
	return w->how == HANDOFF_EXEC && w->onto == ONTO_PROFILE &&
	       hist_pick(s, 2) ? ONTO_ATTACH : w->onto;
}

/* Every route by which an end reaches the task. */
static const enum handoff_how hist_any_how[] = {
	HANDOFF_CHANGE, HANDOFF_FORK, HANDOFF_EXEC, HANDOFF_PASS,
};

static const char *const hist_peer_rules_to_u[PEER_COUNT] = {
	[PEER_ALL] = "connect, send, receive", [PEER_NO_SEND] = "connect, receive",
	[PEER_NO_RECEIVE] = "connect, send", [PEER_NONE] = "",
	[PEER_ALL_TOO] = "connect, send, receive",
};

const char *hist_peer_to_u(enum hist_peer_rules k)
{
	return hist_peer_rules_to_u[k];
}

/*
 * stacked_peers: the pair made, warmed and end 1 kept by a peer P, by a
 * second P2, or by their stack, the task's U the same; by a change, a
 * fork or SCM_RIGHTS (P has no exec rule).
 */
static void hist_gen_peers(struct hist_case *hc, u64 *s)
{
	static const enum handoff_how how[] = {
		HANDOFF_CHANGE, HANDOFF_FORK, HANDOFF_PASS,
	};
	struct hist_world *w = hc->w;

	hc->peer_user = hist_pick(s, PEER_COUNT);
	hc->user2 = (hc->peer_user + 1 + hist_pick(s, PEER_COUNT - 1)) % PEER_COUNT;
	w[0].how = how[hist_pick(s, ARRAY_SIZE(how))];
	w[0].maker = MAKER_PEER;
	w[1] = w[0];
	w[1].maker = MAKER_PEER2;
	w[2] = w[0];
	w[2].maker = MAKER_BOTH;
	hc->worlds = 3;
}

/*
 * other_abi_user: U, or U of the other ABI's pool, where both ABIs say
 * the same ([old]: permissions and types; no peer=(), addr= or path, so
 * a socketpair or abstract names), on the relations' one route to U or
 * a stack on it, which never is A's exec rule (those stack the U of its
 * own ABI).
 */
static void hist_gen_other_abi(struct hist_case *hc, u64 *s)
{
	static const enum hist_unix both_say[] = {
		U_ALL, U_NO_SEND, U_NO_RECEIVE, U_NO_UNIX, U_TYPE,
	};

	if (hist_unix_of(hc->user) == U_PEER_A ||
	    hist_unix_of(hc->user) == U_UNNAMED)
		hc->user = hist_user(both_say[hist_pick(s, ARRAY_SIZE(both_say))],
				     hist_file_of(hc->user));
	if (hc->type == SOCK_DGRAM || hist_pick(s, 2))
		hc->shape = HSHAPE_PAIR;
	else
		hc->shape = HSHAPE_ABSTRACT;
	hc->w[1].as = AS_OTHER_ABI;
}

/*
 * address_user: ends not on paths, which unix rules decide ([path]): a
 * socketpair, or both ends on abstract names (not a dgram pair: see the
 * header).  D denies send or receive where end 0, or its peer, has an
 * address: the one it has, half the time, when U//&D must decide as U
 * stacked with a D that denies it everywhere, else another, when as U
 * stacked with a D that denies nothing ([addr]).
 */
static void hist_gen_addr(struct hist_case *hc, u64 *s)
{
	bool abs = hc->type != SOCK_DGRAM && hist_pick(s, 2);
	enum hist_addr has;

	hc->shape = abs ? HSHAPE_ABSTRACT : HSHAPE_PAIR;
	hc->deny_receive = hist_pick(s, 2);
	hc->deny_at = hist_pick(s, AT_COUNT);
	has = !abs ? ADDR_NONE : hc->deny_at == AT_ADDR ? ADDR_END0 : ADDR_END1;
	hc->deny_addr = hist_pick(s, 2) ? has :
			(has + 1 + hist_pick(s, ADDR_COUNT - 1)) % ADDR_COUNT;
	hc->w[0].deny = DENY_AT;
	hc->w[1].deny = hc->deny_addr == has ? DENY_ALL : DENY_NOTHING;
}

void hist_deny_rule(enum hist_deny d, bool receive, enum hist_addr_at at,
		    enum hist_addr addr, const char *const addrs[ADDR_COUNT],
		    char *buf, size_t len)
{
	const char *perm = receive ? "receive" : "send";

	if (d == DENY_NOTHING)
		snprintf(buf, len, "%s", "");
	else if (d == DENY_ALL)
		snprintf(buf, len, "audit deny unix (%s),", perm);
	else if (at == AT_PEER)
		snprintf(buf, len, "audit deny unix (%s) peer=(addr=%s),", perm,
			 addrs[addr]);
	else
		snprintf(buf, len, "audit deny unix (%s) addr=%s,", perm,
			 addrs[addr]);
}

/*
 * The relations between policies: one route, a random one, whose every
 * check is the task's own (no exec rule of A's: a change, or a stack by
 * the task; a quarter of the time from an unconfined creator, then no
 * stack on it, which would be U alone).
 */
static void hist_gen_policies(struct hist_case *hc, u64 *s,
			      enum hist_rel rel, unsigned int warm)
{
	static const enum handoff_shape on_paths[] = {
		HSHAPE_BOUND, HSHAPE_TO_BOUND, HSHAPE_FROM_BOUND,
	};
	struct hist_world *w = hc->w;

	w[0].how = hist_any_how[hist_pick(s, ARRAY_SIZE(hist_any_how))];
	w[0].onto = hist_pick(s, 2);
	w[0].warm = warm;
	hc->unconfined = !hist_pick(s, 4);
	/*
	 * A stack by name: the task changes to it (see the header); and a
	 * profile in complain mode alone, whose label's mode is its own.
	 */
	if (rel == REL_PEER_CONJ)
		hc->unconfined = false;
	if (hc->unconfined || rel == REL_CONJ || rel == REL_COMPLAIN ||
	    rel == REL_PEER_CONJ || rel == REL_OTHER_ABI || rel == REL_ADDR)
		w[0].onto = ONTO_PROFILE;
	w[1] = w[0];
	switch (rel) {
	case REL_EQUIV:
		w[1].kind = UK_EQUIV;
		break;
	case REL_WIDER:
		w[1].as = hist_pick(s, 2) ? AS_WIDER_UNIX : AS_WIDER_FILE;
		break;
	case REL_COMPLAIN:
		w[1].kind = UK_COMPLAIN;
		break;
	case REL_PEER_CONJ:
		hist_gen_peers(hc, s);
		break;
	case REL_OTHER_ABI:
		hist_gen_other_abi(hc, s);
		break;
	case REL_ADDR:
		hist_gen_addr(hc, s);
		break;
	case REL_CONJ:
		hc->user2 = (hc->user + 1 + hist_pick(s, U_COUNT - 1)) % U_COUNT;
		w[1].as = AS_USER2;
		w[2] = w[0];
		w[2].both = true;
		hc->worlds = 3;
		break;
	default:
		/* Owner rules decide on paths: ends on them. */
		hc->shape = on_paths[hist_pick(s, ARRAY_SIZE(on_paths))];
		hc->not_owned = hist_pick(s, 2);
		/* The test gives them away at the peer's event, on a fork. */
		hc->peer = hc->not_owned ? HPEER_REPLACE : HPEER_NONE;
		w[0].how = HANDOFF_FORK;
		w[1].how = HANDOFF_FORK;
		w[0].kind = UK_OWNER;
		w[1].as = hc->not_owned ? AS_NO_FILE_RULE : AS_WITH_R;
		break;
	}
}

/*
 * A listener for end 0, end 1's connection waiting on it, where the
 * case was drawn for a pair: the operation accept() or a lock, and any
 * use before it a lock (a listener has no data to read or write).
 */
static void hist_listener(struct hist_case *hc, u64 *s, enum hist_rel rel)
{
	static const enum handoff_op ops[] = {
		HOP_ACCEPT, HOP_FLOCK_SH, HOP_FLOCK_EX,
	};
	const unsigned int locks = HANDOFF_WARM(HOP_FLOCK_SH) |
				   HANDOFF_WARM(HOP_FLOCK_EX);
	unsigned int i;

	/* Owner rules decide on paths; the other ABI's U, not on them. */
	hc->shape = rel == REL_OTHER_ABI ? HSHAPE_ABSTRACT_LISTENER :
		    rel == REL_OWNER || hist_pick(s, 2) ?
		    HSHAPE_LISTENER : HSHAPE_ABSTRACT_LISTENER;
	if (hc->type == SOCK_DGRAM)
		hc->type = SOCK_STREAM;
	hc->op = ops[hist_pick(s, ARRAY_SIZE(ops))];
	for (i = 0; i < hc->worlds; i++)
		hc->w[i].warm &= locks;
	if (rel == REL_PRIOR_USE && !hc->w[1].warm)
		hc->w[1].warm = HANDOFF_WARM(HOP_FLOCK_SH);
}

void hist_gen(struct hist_case *hc, u64 seed, enum hist_rel rel)
{
	static const enum handoff_how moved[] = {
		HANDOFF_FORK, HANDOFF_EXEC, HANDOFF_PASS,
	};
	static const int shuts[] = { SHUT_RD, SHUT_WR, SHUT_RDWR };
	u64 s = seed;
	unsigned int warm = 0;
	size_t i;

	memset(hc, 0, sizeof(*hc));
	hc->seed = seed;
	hc->worlds = 2;
	hc->shape = hist_shapes[hist_pick(&s, ARRAY_SIZE(hist_shapes))];
	hc->type = hist_types[hist_pick(&s, ARRAY_SIZE(hist_types))];
	/* Only its peer abstract: see the header. */
	if (hc->shape == HSHAPE_ABSTRACT && hc->type == SOCK_DGRAM)
		hc->shape = HSHAPE_FROM_BOUND;
	hc->op = hist_pick(&s, 4) ?
		 hist_ops[hist_pick(&s, HIST_CORE_OPS)] :
		 hist_ops[HIST_CORE_OPS +
			  hist_pick(&s, ARRAY_SIZE(hist_ops) - HIST_CORE_OPS -
					(hist_have_uring ? 0 : 2))];
	hc->user = hist_pick(&s, U_COUNT);
	for (i = 0; i < ARRAY_SIZE(hist_warm_ops); i++)
		if (hist_pick(&s, 2))
			warm |= hist_warm_ops[i];
	switch (rel) {
	case REL_PRIOR_USE:
		hc->w[0].how = hist_any_how[hist_pick(&s, ARRAY_SIZE(hist_any_how))];
		/* change_profile to "&U" is a way of the creator's own change. */
		hc->w[0].onto = hist_pick(&s, hc->w[0].how == HANDOFF_CHANGE ?
					  3 : 2);
		hc->w[0].onto = hist_onto_alone(&hc->w[0], &s);
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
			hc->w[1].onto = hist_onto_alone(&hc->w[1], &s);
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
		/* The exec rule, the last way, where A has one for U. */
		i = 1 + hist_pick(&s, ARRAY_SIZE(hist_stack_ways) - 2 +
				  hist_exec_rule(hc->user));
		hc->w[1] = hist_stack_ways[i];
		hc->w[0].warm = warm;
		hc->w[1].warm = warm;
		break;
	case REL_PEER_SIDE:
		/* The peer keeps end 1 in a process of its own either way. */
		hc->w[0].how = hist_pick(&s, 2) ? HANDOFF_PASS : HANDOFF_FORK;
		/* Every way the task itself asks for. */
		hc->w[0].onto = hist_pick(&s, ONTO_RULE);
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
		hc->peer_shut = shuts[hist_pick(&s, ARRAY_SIZE(shuts))];
		break;
	default:
		hist_gen_policies(hc, &s, rel, warm);
		break;
	}
	/*
	 * A sixth of the cases, but for the peer's events (see the header)
	 * and addresses: a listener has no peer for peer=(addr=) to match.
	 */
	if (rel != REL_PEER_SIDE && rel != REL_ADDR && !hist_pick(&s, 6))
		hist_listener(hc, &s, rel);
}

unsigned int hist_world_user(const struct hist_case *hc, int w)
{
	unsigned int u = hc->user;

	switch (hc->w[w].as) {
	case AS_WIDER_UNIX:
		return hist_user(U_ALL, hist_file_of(u));
	case AS_WIDER_FILE:
		return hist_user(hist_unix_of(u), F_RWK);
	case AS_USER2:
		return hc->user2;
	case AS_NO_FILE_RULE:
		return hist_user(hist_unix_of(u), F_R);
	case AS_WITH_R:
		return hist_file_of(u) == F_W ? hist_user(hist_unix_of(u), F_RW) :
		       u;
	default:
		return u;
	}
}

static const char *hist_onto_name(enum handoff_onto onto)
{
	static const char *const names[] = {
		[ONTO_PROFILE] = "change_profile to U",
		[ONTO_STACK] = "aa_stack_profile(U): A//&U",
		[ONTO_CHANGE_STACK] = "change_profile to &U: A//&U",
		[ONTO_NAMED] = "change_profile to A//&U",
		[ONTO_RULE] = "A's exec rule pix -> &U: A//&U",
		[ONTO_ATTACH] = "A's exec rule px, U attached to the path",
	};

	return names[onto];
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
	} else if (hc->peer == HPEER_REPLACE && !hc->not_owned) {
		snprintf(buf, len, "; A's profile is replaced by a text that means the same");
	} else if (hc->peer == HPEER_SHUTDOWN) {
		snprintf(buf, len, "; A shuts end 1 down (%s)",
			 hc->peer_shut == SHUT_RD ? "SHUT_RD" :
			 hc->peer_shut == SHUT_WR ? "SHUT_WR" : "SHUT_RDWR");
	} else if (hc->peer == HPEER_READ || hc->peer == HPEER_CLOSE) {
		snprintf(buf, len, "; A %s", handoff_peer_name(hc->peer));
	} else {
		buf[0] = '\0';
	}
}

/* How world @w's U is written, and what it is stacked with: "" for neither. */
static void hist_kind_str(const struct hist_case *hc, enum aa_abi abi, int w,
			  char *buf, size_t len)
{
	static const char *const kinds[UK_COUNT] = {
		[UK_EQUIV] = " (as U': its rules twice, by path too, a deny, another name)",
		[UK_COMPLAIN] = " in complain mode",
		[UK_OWNER] = " with owner file rules",
	};
	static const char *const addrs[ADDR_COUNT] = {
		[ADDR_NONE] = "none", [ADDR_END0] = "@<end 0's name>",
		[ADDR_END1] = "@<end 1's name>",
	};
	char what[96];

	if (hc->w[w].as == AS_OTHER_ABI) {
		snprintf(buf, len, " (the other ABI's text)");
	} else if (hc->w[w].both) {
		hist_user_name(abi, hc->user2, what, sizeof(what));
		snprintf(buf, len, " stacked with the second U (%s)", what);
	} else if (hc->w[w].deny) {
		hist_deny_rule(hc->w[w].deny, hc->deny_receive, hc->deny_at,
			       hc->deny_addr, addrs, what, sizeof(what));
		snprintf(buf, len, " stacked with D (%s)",
			 what[0] ? what : "which denies nothing");
	} else {
		snprintf(buf, len, "%s", kinds[hc->w[w].kind] ?: "");
	}
}

/* Who makes world @w's pair: "A", "P (towards U: nothing)"... */
static void hist_maker_str(const struct hist_case *hc, int w, char *buf,
			   size_t len)
{
	enum hist_maker m = hc->w[w].maker;
	const char *p[2];
	int i;

	if (m == MAKER_A) {
		snprintf(buf, len, "%s",
			 hc->unconfined ? "an unconfined task" : "A");
		return;
	}
	/* stacked_peers' alone: elsewhere they are U's, or not drawn. */
	p[0] = hist_peer_to_u(hc->peer_user);
	p[1] = hist_peer_to_u(hc->user2);
	for (i = 0; i < 2; i++)
		p[i] = p[i][0] ? p[i] : "nothing";
	if (m == MAKER_BOTH)
		snprintf(buf, len, "P//&P2 (towards U: %s; %s)", p[0], p[1]);
	else
		snprintf(buf, len, "%s (towards U: %s)",
			 m == MAKER_PEER ? "P" : "P2", p[m == MAKER_PEER2]);
}

void hist_world_str(const struct hist_case *hc, enum aa_abi abi, int w,
		    char *buf, size_t len)
{
	char warm[64], user[64], kind[160], peer[128], maker[160];
	bool after = hc->w[w].peer_after;

	hist_warm_str(hc->w[w].warm, warm, sizeof(warm));
	hist_user_name(abi, hist_world_user(hc, w), user, sizeof(user));
	hist_kind_str(hc, abi, w, kind, sizeof(kind));
	hist_peer_str(hc, abi, peer, sizeof(peer));
	hist_maker_str(hc, w, maker, sizeof(maker));
	if (hc->w[w].made_there) {
		snprintf(buf, len, "the task, under %s, U %s, makes a %s %s; %s on end 0",
			 hist_onto_name(hc->w[w].onto), user, type_name(hc->type),
			 handoff_shape_name(hc->shape),
			 handoff_op_name(hc->op));
		return;
	}
	snprintf(buf, len,
		 "%s makes a %s %s%s; it does %s on end 0%s; %s; by %s, U %s%s%s; %s on end 0",
		 maker, type_name(hc->type), handoff_shape_name(hc->shape),
		 hc->not_owned ? ", its files given to another user" : "",
		 warm, after ? "" : peer, handoff_how_name(hc->w[w].how),
		 hist_onto_name(hc->w[w].onto), user, kind,
		 after ? peer : "", handoff_op_name(hc->op));
}
