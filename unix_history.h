/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The random lane's generator: from a seed, the worlds of one case, which
 * differ only in history the policy says does not matter, and the
 * profiles U of the pool the task's label is made of.  The lane runs and
 * judges them (unix_history_tests.c).
 */

#ifndef _SELFTESTS_APPARMOR_UNIX_HISTORY_H
#define _SELFTESTS_APPARMOR_UNIX_HISTORY_H

#include <stdbool.h>
#include <stddef.h>

#include "common.h"
#include "profile.h"
#include "unix_handoff.h"

typedef unsigned long long u64;

/*
 * The profiles U of the pool: a choice of unix rules of the grammar both
 * ABIs share (permission subsets, type=) or the NEW ABI's alone
 * (peer=(label=), addr= with peer=(addr=)), where the OLD ABI gets other
 * subsets instead, times a choice of file rules on the run directory,
 * where ends on paths are and locks are taken (no rule grants every
 * path: a U without r there may not read an end on a path).
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
	F_W,		/* no read or lock of an end on a path */
	F_COUNT,
};

#define U_COUNT (U_UNIX_COUNT * F_COUNT)

enum hist_unix hist_unix_of(unsigned int u);
enum hist_file hist_file_of(unsigned int u);
unsigned int hist_user(enum hist_unix un, enum hist_file f);
/* U's file permissions on the run directory: "rwk". */
const char *hist_file_perms(unsigned int u);
/* U's description: "all but send, rw". */
const char *hist_user_name(enum aa_abi abi, unsigned int u, char *buf,
			   size_t len);
/* U's unix rules in @abi; @a is A's name, for peer=(label=). */
void hist_unix_rules(struct prof *p, enum aa_abi abi, enum hist_unix un,
		     const char *a);
/*
 * Whether A has an exec rule that stacks U (pix -> &U): for the U with
 * rwk file rules alone, since apparmor_parser takes 12 such rules in a
 * profile at most.
 */
bool hist_exec_rule(unsigned int u);

/*
 * The texts of a U: its own; U', which means the same (its rules twice,
 * its file rules again for the ends' own paths, a deny of a write it
 * never makes, another name); U in complain mode;
 * U with its file rules on the run directory made owner rules, and a
 * plain "r" there: owned, it decides as U with r added (AS_WITH_R); not
 * owned, as U with "r" file rules (AS_NO_FILE_RULE).
 */
enum hist_kind {
	UK_PLAIN,
	UK_EQUIV,
	UK_COMPLAIN,
	UK_OWNER,
	UK_COUNT,
};

/* Which U of the pool a world's task runs under, from the case's U. */
enum hist_as {
	AS_USER,
	AS_WIDER_UNIX,	/* U_ALL's unix rules, U's file rules */
	AS_WIDER_FILE,	/* U's unix rules, rwk file rules */
	AS_USER2,	/* the case's second U */
	AS_NO_FILE_RULE, /* U's unix rules, "r" file rules */
	AS_WITH_R,	/* U's unix rules, its file rules and r */
	AS_OTHER_ABI,	/* U of the other ABI's pool, by name */
};

/*
 * stacked_peers' peers P (NEW ABI): every unix operation among
 * themselves, so that one may always make and use its pair, and towards
 * a U connect, send and receive, all but send, all but receive, or none.
 * Two grant all, first and last by name, since the kernel orders a
 * stack's profiles by name: a check of one end of the stack alone sees
 * one that grants all as often as one that does not.
 */
enum hist_peer_rules {
	PEER_ALL,
	PEER_NO_SEND,
	PEER_NO_RECEIVE,
	PEER_NONE,
	PEER_ALL_TOO,
	PEER_COUNT,
};

/* P's unix rules towards U, "" for none. */
const char *hist_peer_to_u(enum hist_peer_rules k);

/*
 * address_user's profiles D (NEW ABI): every unix operation, U's files
 * and exec, and an audited deny of send or of receive, either for every
 * socket or where end 0 (addr=) or its peer (peer=(addr=)) has one of
 * the addresses a socket of the lane may have.
 */
enum hist_addr_at {
	AT_ADDR,
	AT_PEER,
	AT_COUNT,
};

enum hist_addr {
	ADDR_NONE,	/* not bound: addr=none */
	ADDR_END0,	/* end 0's abstract name */
	ADDR_END1,
	ADDR_COUNT,
};

/* The D a world's U is stacked with, if any. */
enum hist_deny {
	DENY_NONE,	/* U alone */
	DENY_NOTHING,	/* a D that denies nothing */
	DENY_AT,	/* the case's deny, at the case's address */
	DENY_ALL,	/* the case's deny, at every address */
};

/*
 * D's rule, "audit deny unix (send) peer=(addr=@name),", its address
 * @addr written as @addrs has it; "" for DENY_NOTHING.
 */
void hist_deny_rule(enum hist_deny d, bool receive, enum hist_addr_at at,
		    enum hist_addr addr, const char *const addrs[ADDR_COUNT],
		    char *buf, size_t len);

/*
 * stacked_peers: the pair made, and end 1 kept, by the case's first
 * peer profile, its second, or their stack, instead of A.
 */
enum hist_maker {
	MAKER_A,
	MAKER_PEER,
	MAKER_PEER2,
	MAKER_BOTH,
};

/*
 * One world of a handoff case: how the end gets there, how the label is
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
	/* Which U of the pool, and which text of it, the task runs under. */
	enum hist_as as;
	enum hist_kind kind;
	/* The stack of the case's U and its second U (conjunction). */
	bool both;
	/* Who makes the pair and keeps end 1: A, or as enum hist_maker. */
	enum hist_maker maker;
	/* address_user: U stacked with a D. */
	enum hist_deny deny;
};

/* The relations of handoff cases: what their worlds differ in. */
enum hist_rel {
	REL_PRIOR_USE,
	REL_ROUTE,
	REL_LABEL_PATH,
	REL_PEER_SIDE,
	REL_EQUIV,
	REL_WIDER,
	REL_COMPLAIN,
	REL_CONJ,
	REL_OWNER,
	REL_PEER_CONJ,
	REL_OTHER_ABI,
	REL_ADDR,
	REL_COUNT,
};

extern const char *const hist_rel_name[];

#define HIST_WORLDS 3

struct hist_case {
	u64 seed;
	enum handoff_shape shape;
	int type;
	enum handoff_op op;
	unsigned int user;	/* < U_COUNT */
	/* The peer's event, the same in every world but for its time. */
	enum handoff_peer peer;
	unsigned int peer_warm;
	int peer_shut;		/* HPEER_SHUTDOWN's how */
	/* HPEER_CHANGE: to this U; stacked_peers: the first P */
	unsigned int peer_user;
	/* conjunction: the other U of the stack; stacked_peers: the second P */
	unsigned int user2;
	/* Made by an unconfined creator instead of A. */
	bool unconfined;
	/* Ends on paths given to HIST_OTHER_UID once bound. */
	bool not_owned;
	/* address_user: D denies receive (else send), and where. */
	bool deny_receive;
	enum hist_addr_at deny_at;
	enum hist_addr deny_addr;
	/* Two worlds, or three for a route: each pair of them compared. */
	unsigned int worlds;
	struct hist_world w[HIST_WORLDS];
};

#define HIST_OTHER_UID 65534

/* HANDOFF_WARM() of each operation a warm-up may hold. */
#define HIST_WARM_OPS 4
extern const unsigned int hist_warm_ops[HIST_WARM_OPS];

/*
 * Whether the kernel and this build have io_uring: its ops are drawn
 * only then (a seed replays on a machine alike).
 */
extern bool hist_have_uring;

/* splitmix64: every case's draws come from its own seed. */
u64 hist_next(u64 *s);
unsigned int hist_pick(u64 *s, unsigned int n);

/* The U of the pool world @w of @hc runs under (of a stack: the first). */
unsigned int hist_world_user(const struct hist_case *hc, int w);

/* The case of relation @rel drawn from @seed. */
void hist_gen(struct hist_case *hc, u64 seed, enum hist_rel rel);

/* World @w's events in the order they happen, for a report. */
void hist_world_str(const struct hist_case *hc, enum aa_abi abi, int w,
		    char *buf, size_t len);

#endif /* _SELFTESTS_APPARMOR_UNIX_HISTORY_H */
