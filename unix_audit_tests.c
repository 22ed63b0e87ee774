// SPDX-License-Identifier: GPL-2.0
/*
 * AppArmor AF_UNIX denials in the audit log, and complain mode.  Records
 * are read from the audit netlink multicast group (audit_log.h), so the
 * test neither needs nor disturbs an audit daemon.
 */

#include "audit_log.h"
#include "unix_test.h"

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
	const char *why;	/* the clauses of SEMANTICS */
};

/* 6.17+: a stream connect asks for send and receive with connect. */
static const struct audit_case audit_cases[] = {
	{ SOCK_DGRAM, "send", "sendmsg", "send", STEP_SENDTO,
	  "[send] [audit] [complain]" },
	{ SOCK_STREAM, "connect", "connect", "send receive connect",
	  STEP_CONNECT, "[peer] [audit] [complain]" },
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
	snprintf(desc, sizeof(desc), "client without %s, %s mode %s", ac->perm,
		 complain ? "complain" : "enforce", ac->why);
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

TEST(old_abi_audit_and_complain)
{
	run_abi(_metadata, AA_ABI_OLD, check_audit);
}

TEST(new_abi_audit_and_complain)
{
	run_abi(_metadata, AA_ABI_NEW, check_audit);
}

static check_fn *const audit_checks_of_abi[] = {
	check_audit,
};

/* What the audit area registers and runs, by ABI. */
static const struct checks audit_checks[AA_ABI_COUNT] = {
	[AA_ABI_OLD] = { audit_checks_of_abi, ARRAY_SIZE(audit_checks_of_abi) },
	[AA_ABI_NEW] = { audit_checks_of_abi, ARRAY_SIZE(audit_checks_of_abi) },
};
