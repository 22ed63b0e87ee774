// SPDX-License-Identifier: GPL-2.0
/*
 * AppArmor AF_UNIX rules under the OLD (abi/4.0, coarse "network unix")
 * and the NEW (abi/5.0, fine-grained "unix", network_v9/af_unix, 6.17+)
 * policy ABI: each permission, type=, addr=, peer=(label=, addr=), file
 * rules on socket paths (with and without "owner"), one side unconfined,
 * and the cases of commit 6456ccbd2ff7.
 *
 * Every check runs a full conversation (create, options, bind, listen,
 * connect, accept, names, three send flavours, receive, shutdown) between
 * a server and a client with their own profiles, and asserts where each
 * side stops: the operation that fails and its errno on the side
 * mediation stops, and where the other side then has to give up.  Where
 * a single missing permission stops it is stated in unix_perms.c.
 */

#include "unix_variants.h"

#include <sys/stat.h>

/* Both sides allowed everything, and the labels are what we loaded. */
static void check_allow_all(struct ctx *c)
{
	struct prof r = { };

	rules(&r, "  %s,\n", c->v->abi == AA_ABI_NEW ? "unix" : "network unix");
	sub(c, "allow all [perm]", &r, &r, all_ok);
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
	sub(c, "all permissions listed [perm]", &full, &full, all_ok);

	for (who = first_side(v); who < SIDE_COUNT; who++) {
		for (i = 0; i < prof_unix_perms_count; i++) {
			const char *perm = prof_unix_perms[i];

			all_perms_but(&less, v->abi, perm);
			snprintf(desc, sizeof(desc), "%s without %s",
				 side_name(who), perm);
			sub(c, desc, who == SERVER ? &less : &full,
			    who == CLIENT ? &less : &full,
			    missing(c, who, perm));
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
			    missing(c, who, perm));
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
	sub(c, "type matches [perm]", &match, &match, all_ok);
	if (v->kind != KIND_UNNAMED)
		sub(c, "server type differs [perm]", &other, &match,
		    denied(SERVER, STEP_CREATE));
	sub(c, "client type differs [perm]", &match, &other, denied(CLIENT, STEP_CREATE));
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
		sub(c, "addr matches [perm]", &full, &ok, all_ok);
		sub(c, "addr differs [perm]", &full, &bad,
		    denied(CLIENT, STEP_GETSOCKNAME));
		break;
	case KIND_PATHNAME:
		rules(&fs_deny, "  unix (%s),\n  unix addr=@%s,\n  deny %s w,\n",
		      local, other, addr);
		sub(c, "addr differs, file rules allow the path [path]", &bad, &full,
		    all_ok);
		sub(c, "addr differs, a file rule denies the path [path]", &fs_deny,
		    &full, denied(SERVER, STEP_BIND));
		break;
	case KIND_AUTOBIND:
		sub(c, "addr matches [perm]", &ok, &full, all_ok);
		sub(c, "addr differs [perm]", &bad, &full,
		    denied(SERVER, conn_type(v->type) ? STEP_LISTEN :
							STEP_GETSOCKNAME));
		break;
	default:
		sub(c, "addr matches [perm]", &ok, &full, all_ok);
		sub(c, "addr differs [perm]", &bad, &full, denied(SERVER, STEP_BIND));
	}
}

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
	      PEER_LOCAL_RULES, server);
	rules(&to_self, "%s  unix (connect, send, receive) peer=(label=%s),\n",
	      PEER_LOCAL_RULES, self);
	sub(c, "peer label matches [peer]", &srv, pair ? &to_self : &to_server, all_ok);
	sub(c, "peer label differs [peer]", &srv, pair ? &to_server : &to_self,
	    peer_mismatch(c->v->kind, c->v->type));
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
	      PEER_LOCAL_RULES, addr);
	rules(&ko, "%s  unix (connect, send, receive) peer=(addr=@%s),\n",
	      PEER_LOCAL_RULES, other);
	if (c->v->kind != KIND_PATHNAME) {
		sub(c, "peer addr matches [peer]", &full, &ok, all_ok);
		sub(c, "peer addr differs [peer]", &full, &ko,
		    peer_mismatch(c->v->kind, c->v->type));
		return;
	}
	rules(&fs_deny, "%s  unix (connect, send, receive) peer=(addr=@%s),\n"
	      "  deny %s w,\n", PEER_LOCAL_RULES, other, addr);
	sub(c, "peer addr differs, file rules allow the path [path]", &full, &ko,
	    all_ok);
	sub(c, "peer addr differs, a file rule denies the path [path]", &full,
	    &fs_deny, denied(CLIENT, conn ? STEP_CONNECT : STEP_SENDTO));
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
	sub(c, "client on a path [path] [old]", &full, &full, all_ok);
	for (i = 0; i < ARRAY_SIZE(perms); i++) {
		lacking(&less, v->abi, perms[i]);
		snprintf(desc, sizeof(desc),
			 "client on a path, without unix %s [path] [old]",
			 perms[i]);
		sub(c, desc, &full, &less,
		    new ? all_ok : missing(c, CLIENT, perms[i]));
	}

	/*
	 * The server's side, its receive at a dgram send and its send and
	 * receive at a connect, is checked on the client's path: a file rule
	 * denying it r refuses the client.  (The client's own path needs w
	 * for bind and for send alike: no file rule tells them apart.)
	 */
	lacking(&srv, v->abi, NULL);
	prof_add(&srv, "  deny %s r,\n", own);
	sub(c, "server denied r on the client's path [path] [old]", &srv, &full,
	    !new ? all_ok : denied(CLIENT, conn_type(v->type) ? STEP_CONNECT :
				   STEP_SENDTO));
	c->client_path = NULL;
}

static void check_unconfined(struct ctx *c)
{
	sub(c, "unconfined [label]", NULL, NULL, all_ok);
}

/*
 * Named cases for commit 6456ccbd2ff7 ("apparmor: fix regression in fs
 * based unix sockets when using old abi").  Each runs on the socket kinds
 * and types it is about.
 */
static void file_deny_cases(struct ctx *c)
{
	struct prof srv = { }, cli = { };
	char sock[NAME_MAX_LEN];
	bool conn = conn_type(c->v->type);

	sock_name(sock, sizeof(sock));
	rules(&srv, "  %s\n", prof_allow_unix(c->v->abi));
	rules(&cli, "  %s\n  deny %s/%s rw,\n", prof_allow_unix(c->v->abi),
	      aa_policy_dir(policy), sock);
	/* OLD: file rules no longer apply to the connect or the send. */
	sub(c, "client denied rw on the socket path [path] [old]", &srv, &cli,
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
	rules(&cli, "  %s\n", prof_allow_unix(v->abi));
	/* A socketpair's receiver is the sending process itself. */
	sub(c, "receiver without receive [receive] [old]", &srv,
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

	rules(&cli, "  %s\n", prof_allow_unix(c->v->abi));
	rules(&srv, "  %s\n  deny %s/* w,\n", prof_allow_unix(c->v->abi),
	      aa_policy_dir(policy));
	sub(c, "server denied w on the directory [path] [old]", &srv, &cli,
	    denied(SERVER, STEP_BIND));
}

/* (c) Binding to a path needs file "w" in both ABIs. */
static void check_bind_needs_w(struct ctx *c)
{
	each_type(c, KIND_PATHNAME, bind_cases);
}

/*
 * "owner" file rules on socket paths.  The owner a rule's condition is
 * held against is the owner of the socket file (unix_fs_perm() takes the
 * inode's uid), not the task: a client running as root is not the owner
 * of a socket file the server gave to OTHER_UID.  The sockets are in a
 * directory of OTHER_UID's (0777, so that no capability is needed to
 * create in it), outside the run directory's "*" rule that every profile
 * carries.
 */
#define OTHER_UID 65534

static void owned_dir(char *buf, size_t len)
{
	snprintf(buf, len, "%s/owned", aa_policy_dir(policy));
}

/*
 * Binding creates the socket file (the mknod hook, in both ABIs): its
 * owner is the task creating it, whoever owns the directory, so an owner
 * rule granting "w" on the directory's files is enough to bind there.
 */
static void owner_bind_cases(struct ctx *c)
{
	const char *unix_rule = prof_allow_unix(c->v->abi);
	struct prof srv = { }, none = { }, cli = { };
	char dir[PATH_MAX];

	owned_dir(dir, sizeof(dir));
	rules(&srv, "  %s\n  owner %s/* rw,\n", unix_rule, dir);
	rules(&none, "  %s\n", unix_rule);
	rules(&cli, "  %s\n  %s/* rw,\n", unix_rule, dir);
	/* Without a rule on the directory's files bind is denied... */
	sub(c, "server without a file rule, bind in another uid's directory [path]",
	    &none, &cli, denied(SERVER, STEP_BIND));
	/* ...and the owner rule allows it: the new file is the server's. */
	sub(c, "server with an owner rule, bind in another uid's directory [owner]",
	    &srv, &cli, all_ok);
}

/*
 * A socket file the server gives to OTHER_UID once bound.  The NEW ABI
 * checks the client's connect (stream, seqpacket: unix_connect_perm())
 * or send (dgram: apparmor_unix_may_send()) against the file rules of
 * the server's path, with the file's owner (profile_peer_perm() ->
 * unix_fs_perm()), and the server's own operations on its socket the
 * same way (profile_sk_perm()).  The OLD ABI does not consult file rules
 * for any of them: __aa_path_perm() returns 0 for PATH_SOCK_COND without
 * network_v9 rules, and the coarse "network unix" rule decides.
 */
static void owner_file_cases(struct ctx *c)
{
	bool new = c->v->abi == AA_ABI_NEW, conn = conn_type(c->v->type);
	const char *unix_rule = prof_allow_unix(c->v->abi);
	struct prof srv = { }, owner = { }, plain = { };
	char dir[PATH_MAX], sock[NAME_MAX_LEN];

	owned_dir(dir, sizeof(dir));
	sock_name(sock, sizeof(sock));
	/* Giving the file away takes "w" on it and CAP_CHOWN. */
	rules(&srv, "  capability chown,\n  %s\n  %s/* rw,\n", unix_rule, dir);
	rules(&owner, "  %s\n  owner %s/%s rw,\n", unix_rule, dir, sock);
	rules(&plain, "  %s\n  %s/%s rw,\n", unix_rule, dir, sock);

	/* Root's socket file: the owner rule matches for the root client. */
	sub(c, "client's owner rule, a socket file of its own uid [owner]", &srv,
	    &owner, all_ok);
	c->sock_owner = OTHER_UID;
	/* A rule without the condition matches whoever owns the file. */
	sub(c, "client's plain rule, another uid's socket file [owner]", &srv, &plain,
	    all_ok);
	/* The owner rule does not match another uid's file. */
	sub(c, "client's owner rule, another uid's socket file [owner]", &srv, &owner,
	    !new ? all_ok :
	    denied(CLIENT, conn ? STEP_CONNECT : STEP_SENDTO));
	c->sock_owner = 0;
}

/* OTHER_UID's directory, where the server binds: the test's, unconfined. */
static int give_dir(const char *dir)
{
	if (mkdir(dir, 0777) && errno != EEXIST)
		return -1;
	/* mkdir() applied the umask. */
	if (chmod(dir, 0777) || chown(dir, OTHER_UID, -1))
		return -1;
	return 0;
}

static void check_owner_rules(struct ctx *c)
{
	struct __test_metadata *_metadata = c->metadata;
	char dir[PATH_MAX];

	owned_dir(dir, sizeof(dir));
	if (!c->collect) {
		ASSERT_EQ(0, give_dir(dir)) {
			TH_LOG("%s: %s", dir, strerror(errno));
		}
	}
	c->sock_dir = dir;
	each_type(c, KIND_PATHNAME, owner_bind_cases);
	each_type(c, KIND_PATHNAME, owner_file_cases);
	c->sock_dir = NULL;
	if (!c->collect)
		rmdir(dir);
}

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

static void mixed_kinds_types(struct ctx *c)
{
	each_type(c, KIND_ABSTRACT, check_mixed_kinds);
	each_type(c, KIND_AUTOBIND, check_mixed_kinds);
}

TEST(old_abi_client_on_a_path)
{
	run_abi(_metadata, AA_ABI_OLD, mixed_kinds_types);
}

TEST(new_abi_client_on_a_path)
{
	run_abi(_metadata, AA_ABI_NEW, mixed_kinds_types);
}

/*
 * Commit 6456ccbd2ff7 ("apparmor: fix regression in fs based unix sockets
 * when using old abi"), v6.17-rc1: each check picks its own socket kinds.
 * Case (e) is af_unix.pathname_*.old_abi_each_permission.
 */
TEST(fix_6456ccbd2ff7_a_old_abi_file_deny_is_not_enforced)
{
	run_abi(_metadata, AA_ABI_OLD, check_file_deny);
}

TEST(fix_6456ccbd2ff7_b_old_abi_receiver_checked)
{
	run_abi(_metadata, AA_ABI_OLD, check_receiver_at_send);
}

TEST(fix_6456ccbd2ff7_b_new_abi_receiver_checked)
{
	run_abi(_metadata, AA_ABI_NEW, check_receiver_at_send);
}

TEST(fix_6456ccbd2ff7_c_old_abi_bind_needs_file_w)
{
	run_abi(_metadata, AA_ABI_OLD, check_bind_needs_w);
}

TEST(fix_6456ccbd2ff7_c_new_abi_bind_needs_file_w)
{
	run_abi(_metadata, AA_ABI_NEW, check_bind_needs_w);
}

TEST(fix_6456ccbd2ff7_d_new_abi_file_deny_denies)
{
	run_abi(_metadata, AA_ABI_NEW, check_file_deny);
}

/* Each runs on pathname sockets of every type, in the ABI it names. */
TEST(old_abi_owner_rules_on_socket_paths)
{
	run_abi(_metadata, AA_ABI_OLD, check_owner_rules);
}

TEST(new_abi_owner_rules_on_socket_paths)
{
	run_abi(_metadata, AA_ABI_NEW, check_owner_rules);
}

static check_fn *const rules_old_checks[] = {
	check_allow_all, check_each_permission, check_rule_type,
	check_file_deny, check_receiver_at_send, check_bind_needs_w,
	check_one_side_unconfined, check_mixed_kinds, check_owner_rules,
};

static check_fn *const rules_new_checks[] = {
	check_allow_all, check_each_permission, check_rule_type,
	check_rule_addr, check_rule_peer_label, check_rule_peer_addr,
	check_file_deny, check_receiver_at_send, check_bind_needs_w,
	check_one_side_unconfined, check_mixed_kinds, check_owner_rules,
};

/* What the rules area registers and runs, by ABI. */
static const struct checks rules_checks[AA_ABI_COUNT] = {
	[AA_ABI_OLD] = { rules_old_checks, ARRAY_SIZE(rules_old_checks) },
	[AA_ABI_NEW] = { rules_new_checks, ARRAY_SIZE(rules_new_checks) },
};
