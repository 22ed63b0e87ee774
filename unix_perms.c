// SPDX-License-Identifier: GPL-2.0
/*
 * Single missing permissions: where each side stops.
 */

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "unix_perms.h"

const struct expect all_ok = { SIDE_COUNT, STEP_DONE, 0 };

struct expect denied(enum side who, enum step step)
{
	return (struct expect){ who, step, EACCES };
}

/*
 * Where a conversation stops when one side's profile lacks one unix
 * permission, by ABI, socket kind, the side missing it and the socket
 * type.  The first row matching the permission, kind and side decides; no
 * row means nothing is denied.
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
	const struct stop_at *at;
	bool listed = false;

	if (abi == AA_ABI_NEW)
		row = find_row(new_abi_missing, kind, who, perm, &listed);
	else if (!have_v9)
		row = find_row(old_abi_missing_pre_v9, kind, who, perm, &listed);
	if (abi == AA_ABI_OLD && !listed)
		row = find_row(old_abi_missing, kind, who, perm, &listed);
	if (!row)
		return all_ok;
	at = type != SOCK_DGRAM ? &row->conn : &row->dgram;
	if (at->step == STEP_DONE)
		return all_ok;
	return denied(at->who == SIDE_COUNT ? who : at->who, at->step);
}

/*
 * Where a client whose peer rules do not match the server is stopped: a
 * server bound to a path is reached through file rules, and a socketpair
 * is connected before any peer rule is consulted.
 */
struct expect peer_mismatch(enum sock_kind kind, int type)
{
	if (kind == KIND_PATHNAME)
		return all_ok;
	if (type != SOCK_DGRAM)
		return kind == KIND_UNNAMED ? all_ok :
		       denied(CLIENT, STEP_CONNECT);
	return denied(CLIENT, STEP_SENDTO);
}
