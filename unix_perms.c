// SPDX-License-Identifier: GPL-2.0
/*
 * Single missing permissions: where each side stops.
 */

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "unix_perms.h"

const struct expect all_ok = { .who = SIDE_COUNT, .step = STEP_DONE };

struct expect denied(enum side who, enum step step)
{
	return (struct expect){ .who = who, .step = step, .err = EACCES };
}

/*
 * Where a conversation stops when one side's profile lacks one unix
 * permission, by ABI, socket kind, the side missing it and the socket
 * type, and the clause of SEMANTICS that says so.  The first row
 * matching the permission, kind and side decides; no row means nothing
 * is denied.  A row on an open question names it and where the kernel
 * is known to stop instead.
 */
#define ANY SIDE_COUNT	/* either side */
#define SRV SERVER
#define CLI CLIENT
#define P (1 << KIND_PATHNAME)
#define N ((1 << KIND_ABSTRACT) | (1 << KIND_AUTOBIND))
#define U (1 << KIND_UNNAMED)
#define OK { SIDE_COUNT, STEP_DONE }
#define OWN(s) { ANY, STEP_##s }	/* the side missing it stops */
#define S(s) { SERVER, STEP_##s }
#define C(s) { CLIENT, STEP_##s }
#define ROW(p, k, sd, c, d, w) .perm = (p), .kinds = (k), .side = (sd), \
	.conn = c, .dgram = d, .why = (w)
#define Q(q, kc, kd) .question = (q), .kconn = kc, .kdgram = kd

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
	const char *why;
	const char *question;
	struct stop_at kconn, kdgram;
};

/* clang-format off */
static const struct missing_row new_abi_missing[] = {
	{ ROW("create",   P | N | U, ANY, OWN(CREATE),      OWN(CREATE),   "[perm]") },
	{ ROW("setopt",   P | N | U, ANY, OWN(SETOPT),      OWN(SETOPT),   "[perm]") },
	{ ROW("getopt",   P | N | U, ANY, OWN(GETOPT),      OWN(GETOPT),   "[perm]") },
	{ ROW("shutdown", P,         SRV, OK,               OK,            "[path]") },
	{ ROW("shutdown", P | N | U, ANY, OWN(SHUTDOWN),    OWN(SHUTDOWN), "[perm]") },
	{ ROW("getattr",  U,         ANY, OWN(GETSOCKNAME), OWN(GETSOCKNAME), "[perm]") },
	{ ROW("getattr",  P,         SRV, OK,               OK,            "[path]") },
	{ ROW("getattr",  N,         SRV, S(GETSOCKNAME),   S(GETSOCKNAME), "[perm]") },
	/* The client's own socket is never bound. */
	{ ROW("getattr",  P | N,     CLI, C(GETPEERNAME),   C(GETPEERNAME), "[perm]") },
	{ ROW("bind",     N,         SRV, S(BIND),          S(BIND),       "[perm]") },
	{ ROW("listen",   N,         SRV, S(LISTEN),        OK,            "[perm]") },
	{ ROW("accept",   N,         SRV, C(CONNECT),       OK,            "[peer]") },
	{ ROW("connect",  N,         CLI, C(CONNECT),       C(CONNECT),    "[perm]"),
	  Q("Q4", C(CONNECT), OK) },
	{ ROW("send",     U,         ANY, OWN(SENDTO),      OWN(SENDTO),   "[send]"),
	  Q("Q1", OK, OWN(SENDTO)) },
	{ ROW("send",     N,         SRV, C(CONNECT),       OK,            "[peer]") },
	{ ROW("send",     N,         CLI, C(CONNECT),       C(SENDTO),     "[peer]") },
	{ ROW("receive",  U,         ANY, OWN(RECV),        OWN(SENDTO),   "[receive]"),
	  Q("Q1", OK, OWN(SENDTO)) },
	{ ROW("receive",  N,         SRV, C(CONNECT),       C(SENDTO),     "[peer]") },
	{ ROW("receive",  N,         CLI, C(CONNECT),       OK,            "[peer]") },
	{ }
};

/* 6.17+: one coarse check per operation, paths or not. */
static const struct missing_row old_abi_missing[] = {
	{ ROW("create",   P | N | U, ANY, OWN(CREATE),      OWN(CREATE),   "[old]") },
	{ ROW("setopt",   P | N | U, ANY, OWN(SETOPT),      OWN(SETOPT),   "[old]") },
	{ ROW("getopt",   P | N | U, ANY, OWN(GETOPT),      OWN(GETOPT),   "[old]") },
	{ ROW("shutdown", P | N | U, ANY, OWN(SHUTDOWN),    OWN(SHUTDOWN), "[old]") },
	{ ROW("getattr",  U,         ANY, OWN(GETSOCKNAME), OWN(GETSOCKNAME), "[old]") },
	{ ROW("getattr",  P | N,     SRV, S(GETSOCKNAME),   S(GETSOCKNAME), "[old]") },
	{ ROW("getattr",  P | N,     CLI, C(GETPEERNAME),   C(GETPEERNAME), "[old]") },
	{ ROW("bind",     P | N,     SRV, S(BIND),          S(BIND),       "[old]") },
	{ ROW("listen",   P | N,     SRV, S(LISTEN),        OK,            "[old]") },
	{ ROW("accept",   P,         SRV, C(CONNECT),       OK,            "[old] [peer]"),
	  Q("Q3", S(ACCEPT), OK) },
	{ ROW("accept",   N,         SRV, C(CONNECT),       OK,            "[old] [peer]") },
	{ ROW("connect",  P | N,     CLI, C(CONNECT),       C(CONNECT),    "[old] [perm]"),
	  Q("Q4", C(CONNECT), OK) },
	{ ROW("send",     U,         ANY, OWN(SENDTO),      OWN(SENDTO),   "[old] [send]"),
	  Q("Q1", OK, OWN(SENDTO)) },
	{ ROW("send",     P,         SRV, C(CONNECT),       OK,            "[old] [peer]"),
	  Q("Q3", OK, OK) },
	{ ROW("send",     N,         SRV, C(CONNECT),       OK,            "[old] [peer]") },
	{ ROW("send",     P | N,     CLI, C(CONNECT),       C(SENDTO),     "[old] [peer]") },
	{ ROW("receive",  U,         ANY, OWN(RECV),        OWN(SENDTO),   "[old] [receive]"),
	  Q("Q1", OK, OWN(SENDTO)) },
	{ ROW("receive",  P,         SRV, C(CONNECT),       C(SENDTO),     "[old] [peer]"),
	  Q("Q3", OK, C(SENDTO)) },
	{ ROW("receive",  N,         SRV, C(CONNECT),       C(SENDTO),     "[old] [peer]") },
	{ ROW("receive",  P | N,     CLI, C(CONNECT),       OK,            "[old] [peer]") },
	{ }
};

/*
 * Without unix mediation (no network_v9/af_unix, before 6.17) each
 * socket call asks its task's own coarse rule ([old]): a message in
 * sendmsg() and recvmsg(), a datagram connect() for connect; connect()
 * does not consult the listener.  These permissions are decided by this
 * table alone then; the others as in old_abi_missing.
 */
static const struct missing_row old_abi_missing_pre_v9[] = {
	{ ROW("accept",   P | N,     SRV, S(ACCEPT),        OK,            "[old]") },
	{ ROW("connect",  P | N,     CLI, C(CONNECT),       C(CONNECT),    "[old]") },
	{ ROW("connect",  P | N | U, ANY, OK,               OK,            "[old]") },
	{ ROW("send",     P | N | U, CLI, C(SENDTO),        C(SENDTO),     "[old]") },
	{ ROW("send",     P | N,     SRV, S(REPLY),         OK,            "[old]") },
	{ ROW("receive",  U,         ANY, OWN(RECV),        OWN(RECV),     "[old]") },
	{ ROW("receive",  P | N,     SRV, S(RECV),          S(RECV),       "[old]") },
	{ ROW("receive",  P | N,     CLI, C(RECV_REPLY),    OK,            "[old]") },
	{ }
};

/* clang-format on */
#undef ANY
#undef SRV
#undef CLI
#undef P
#undef N
#undef U
#undef OK
#undef OWN
#undef S
#undef C
#undef Q
#undef ROW

static const struct missing_row *find_row(const struct missing_row *t,
					  enum sock_kind kind, enum side who,
					  const char *perm, bool *listed)
{
	for (; t->perm; t++) {
		if (strcmp(t->perm, perm))
			continue;
		*listed = true;
		if ((t->kinds & (1u << kind)) &&
		    (t->side == SIDE_COUNT || t->side == who))
			return t;
	}
	return NULL;
}

struct expect missing_perm(enum aa_abi abi, bool have_v9, enum sock_kind kind,
			   int type, enum side who, const char *perm)
{
	const struct missing_row *row = NULL;
	const struct stop_at *at, *known;
	bool listed = false;
	struct expect exp;

	if (abi == AA_ABI_NEW)
		row = find_row(new_abi_missing, kind, who, perm, &listed);
	else if (!have_v9)
		row = find_row(old_abi_missing_pre_v9, kind, who, perm, &listed);
	if (abi == AA_ABI_OLD && !listed)
		row = find_row(old_abi_missing, kind, who, perm, &listed);
	if (!row)
		return all_ok;
	at = type != SOCK_DGRAM ? &row->conn : &row->dgram;
	exp = at->step == STEP_DONE ? all_ok :
	      denied(at->who == SIDE_COUNT ? who : at->who, at->step);
	exp.why = row->why;
	known = type != SOCK_DGRAM ? &row->kconn : &row->kdgram;
	if (row->question &&
	    (at->who != known->who || at->step != known->step)) {
		exp.question = row->question;
		exp.known.who = known->who == SIDE_COUNT && known->step != STEP_DONE ?
				who : known->who;
		exp.known.step = known->step;
		exp.known.err = known->step == STEP_DONE ? 0 : EACCES;
	}
	return exp;
}

/*
 * Where a client whose peer rules do not match the server is stopped
 * ([peer]): at its connect or first datagram.  A server bound to a path
 * is reached through file rules ([path]).  A socketpair is connected
 * before any peer rule is consulted: its stream messages are not (Q1).
 */
struct expect peer_mismatch(enum sock_kind kind, int type)
{
	struct expect exp = denied(CLIENT, STEP_SENDTO);

	exp.why = "[peer]";
	if (kind == KIND_PATHNAME) {
		exp = all_ok;
		exp.why = "[path]";
		return exp;
	}
	if (type == SOCK_DGRAM)
		return exp;
	if (kind != KIND_UNNAMED) {
		exp.step = STEP_CONNECT;
		return exp;
	}
	exp.question = "Q1";
	exp.known.who = SIDE_COUNT;
	exp.known.step = STEP_DONE;
	return exp;
}
