// SPDX-License-Identifier: GPL-2.0
/*
 * The random lane's profiles (unix_history_tests.c), each registered once
 * a run in the one parser run of the collection: A, the pool of U's in
 * each of their texts and A//&U, stacked_peers' P's and address_user's
 * D's; then the links to this program that A's exec rules name, and A
 * compiled for its replacement.
 */

/* U @i's name, in text @kind: "hist_u_3_new", "hist_v_3_new" (U'). */
static void hist_user_short(char *buf, size_t len, enum aa_abi abi,
			    unsigned int i, enum hist_kind kind)
{
	snprintf(buf, len, "hist_%c_%u_%s", "uvco"[kind], i,
		 hist_abi_tag(abi));
}

/*
 * What a lane profile grants for a task to enter it by an exec of this
 * program or one of its links, and to change profile under it: the
 * exec's maps and reads, change_profile (a change to the label the task
 * has already changes nothing), the attr write.
 */
static void hist_enterable(struct prof *p)
{
	char x[PATH_MAX];

	snprintf(x, sizeof(x), "%s/{" HIST_X "," HIST_PX "}*",
		 aa_policy_dir(policy));
	prof_exec_reads(p, aa_self_exe(), x);
	prof_add(p, "  change_profile,\n  /proc/*/attr/{apparmor/,}current w,\n");
}

/*
 * stacked_peers' P @k, its name in @buf: its pair and ends its own,
 * whatever the peer label of a stack of P's (each of its profiles is
 * matched), and its rules towards U its choice.  P is written in the NEW
 * ABI, whose unix rules tell a peer from its own ends (the OLD ABI's
 * have no peer=()); the OLD ABI's test names it, the NEW ABI's registers
 * it.  NULL if it is not registered.
 */
static const char *hist_peer_reg(struct ctx *c, enum hist_peer_rules k,
				 char *buf, size_t len)
{
	char short_name[32], peers[NAME_MAX_LEN], users[NAME_MAX_LEN];
	struct prof p = { .name = short_name };
	const char *name;

	snprintf(short_name, sizeof(short_name), "hist_p_%d_new", k);
	if (c->v->abi != AA_ABI_NEW) {
		run_name(buf, len, short_name);
		return buf;
	}
	run_name(peers, sizeof(peers), "hist_p_*");
	run_name(users, sizeof(users), "hist_u_*");
	prof_base(&p, aa_policy_dir(policy), "rwk");
	prof_add(&p, "  unix (create, bind, listen, accept, setopt, getopt, getattr, shutdown),\n"
		 "  unix peer=(label=%s),\n", peers);
	if (hist_peer_to_u(k)[0])
		prof_add(&p, "  unix (%s) peer=(label=%s),\n",
			 hist_peer_to_u(k), users);
	prof_add(&p, "  /** rm,\n  change_profile,\n"
		 "  /proc/*/attr/{apparmor/,}current w,\n");
	name = registered(c, &p);
	if (name)
		snprintf(buf, len, "%s", name);
	return name;
}

/*
 * address_user's D number @n: every unix operation and U's files, but
 * what @rule denies.  Registered in the NEW ABI's test, named in the OLD
 * ABI's: its name in @buf, NULL if it is not registered.
 */
static const char *hist_deny_one(struct ctx *c, unsigned int n,
				 const char *rule, char *buf)
{
	const char *dir = aa_policy_dir(policy), *name;
	char short_name[32];
	struct prof d = { .name = short_name };

	snprintf(short_name, sizeof(short_name), "hist_d_%u_new", n);
	if (c->v->abi != AA_ABI_NEW) {
		run_name(buf, NAME_MAX_LEN, short_name);
		return buf;
	}
	prof_base(&d, dir, "rwk");
	prof_add(&d, "  unix,\n  %s\n", rule);
	hist_enterable(&d);
	name = registered(c, &d);
	if (name)
		snprintf(buf, NAME_MAX_LEN, "%s", name);
	return name;
}

/* address_user's D's, in @hp: false if one is not registered. */
static bool hist_deny_reg(struct ctx *c, struct hist_profs *hp)
{
	char addrs[ADDR_COUNT][NAME_MAX_LEN + 1], rule[2 * NAME_MAX_LEN];
	const char *const written[ADDR_COUNT] = { "none", addrs[1], addrs[2] };
	const unsigned int all = AT_COUNT * ADDR_COUNT;
	unsigned int k, n = 0;
	bool ok = true;
	int recv;

	for (k = ADDR_END0; k < ADDR_COUNT; k++) {
		addrs[k][0] = '@';
		hist_end_name(addrs[k] + 1, NAME_MAX_LEN, k - ADDR_END0);
	}
	for (recv = 0; recv < 2; recv++) {
		for (k = 0; k <= all; k++) {
			hist_deny_rule(k == all ? DENY_ALL : DENY_AT, recv,
				       k == all ? 0 : k / ADDR_COUNT,
				       k % ADDR_COUNT, written, rule,
				       sizeof(rule));
			ok &= !!hist_deny_one(c, n++, rule, hp->d[recv][k]);
		}
	}
	return ok && hist_deny_one(c, n, "", hp->d_nothing);
}

/*
 * U @i in text @kind (enum hist_kind), registered, with A//&U in @stack;
 * NULL if one is not.
 */
static const char *hist_user_reg(struct ctx *c, const struct prof *a,
				 const char *a_full, unsigned int i,
				 enum hist_kind kind, char *stack, size_t len)
{
	const char *dir = aa_policy_dir(policy), *name;
	bool own = kind == UK_OWNER, eq = kind == UK_EQUIV;
	char short_name[32], end[NAME_MAX_LEN], x[PATH_MAX];
	struct prof u = { .name = short_name };
	int k;

	hist_user_short(short_name, sizeof(short_name), c->v->abi, i, kind);
	prof_base(&u, dir, own ? "r" : hist_file_perms(i));
	if (own)
		prof_add(&u, "  owner %s/* %s,\n", dir, hist_file_perms(i));
	for (k = 0; k <= eq; k++)
		hist_unix_rules(&u, c->v->abi, hist_unix_of(i), a_full);
	/*
	 * No rule for every path: the rules on the run directory decide the
	 * reads of the ends on paths, and some U refuse them.
	 */
	hist_enterable(&u);
	if (eq)
		prof_add(&u, "  deny /%s_never w,\n", short_name);
	/* Its file rules again, as single-path rules for the ends' paths. */
	for (k = 0; eq && k < 2; k++) {
		hist_end_name(end, sizeof(end), k);
		prof_add(&u, "  %s/%s %s,\n", dir, end, hist_file_perms(i));
	}
	/* And rules for a peer and an address no socket of the lane has. */
	if (eq && c->v->abi == AA_ABI_NEW)
		prof_add(&u, "  unix peer=(label=%s_nobody),\n"
			 "  unix addr=@%s_nowhere,\n", short_name, short_name);
	name = registered(c, &u);
	if (name && kind == UK_COMPLAIN && c->collect &&
	    aa_policy_complain(policy, name))
		ksft_exit_fail_msg("cannot set complain mode: %s\n", name);
	hist_exec_path(x, sizeof(x), c->v->abi, i, true);
	if (name && kind == UK_PLAIN && c->collect &&
	    aa_policy_attach(policy, name, x))
		ksft_exit_fail_msg("cannot attach %s to %s\n", name, x);
	return name && stack_of(c, a, &u, stack, len) ? name : NULL;
}

/* A link @x to this program @self: false, said, if it cannot be made. */
static bool hist_link(const char *self, const char *x)
{
	if (!aa_link_program(self, x))
		return true;
	ksft_print_msg("history: cannot link %s: %s\n", x, strerror(errno));
	return false;
}

/*
 * A, the pool, each U' and each A//&U, registered in collect mode; and
 * else A compiled for its replacement, and the links its exec rules
 * name.
 */
static bool hist_names(struct ctx *c, struct hist_profs *hp)
{
	const char *abi = hist_abi_tag(c->v->abi);
	const char *dir = aa_policy_dir(policy);
	char aname[32], uname[32], a_full[NAME_MAX_LEN], err[256];
	char u_full[NAME_MAX_LEN], x[PATH_MAX];
	const char *self = aa_self_exe();
	struct prof a = { .name = aname };
	unsigned int i, k;
	int ret;

	/*
	 * A changes profile, maps this program and runs it in an exec, as
	 * itself, or by a link whose exec rule stacks a U: pix, since a
	 * stack goes onto the profile that attaches to the path, and with
	 * none A inherits; or by a link a U attaches to, px.
	 */
	snprintf(aname, sizeof(aname), "hist_a_%s", abi);
	run_name(a_full, sizeof(a_full), aname);
	lacking(&a, c->v->abi, NULL);
	prof_add(&a, "  /proc/*/attr/{apparmor/,}current w,\n  change_profile,\n");
	prof_add(&a, "  /** rm,\n  %s ix,\n  %s/* k,\n", self, dir);
	prof_add(&a, "  %s/" HIST_PX "%s_* px,\n", dir, abi);
	for (i = 0; i < U_COUNT; i++) {
		hist_user_short(uname, sizeof(uname), c->v->abi, i, UK_PLAIN);
		run_name(u_full, sizeof(u_full), uname);
		hist_exec_path(x, sizeof(x), c->v->abi, i, false);
		if (hist_exec_rule(i))
			prof_add(&a, "  %s pix -> &%s,\n", x, u_full);
	}
	hp->abi = c->v->abi;
	hp->a = registered(c, &a);
	for (k = 0; k < UK_COUNT; k++) {
		for (i = 0; i < U_COUNT; i++) {
			hp->u[k][i] = hist_user_reg(c, &a, a_full, i, k,
						    hp->stack[k][i],
						    sizeof(hp->stack[k][i]));
			if (!hp->u[k][i])
				hp->a = NULL;
		}
	}
	for (i = 0; i < U_COUNT; i++) {
		hist_user_short(uname, sizeof(uname), hist_other_abi(c->v->abi),
				i, UK_PLAIN);
		run_name(hp->other[i], sizeof(hp->other[i]), uname);
	}
	for (i = 0; i < PEER_COUNT; i++) {
		if (!hist_peer_reg(c, i, hp->p[i], sizeof(hp->p[i])))
			hp->a = NULL;
	}
	if (!hist_deny_reg(c, hp))
		hp->a = NULL;
	if (c->collect && !hp->a)
		ksft_exit_fail_msg("cannot register more profiles\n");
	if (c->collect || !hp->a)
		return hp->a;
	/* The px rule's link for every U, the pix rule's where A has one. */
	for (i = 0; i < U_COUNT; i++) {
		hist_exec_path(x, sizeof(x), c->v->abi, i, true);
		if (!hist_link(self, x))
			return false;
		hist_exec_path(x, sizeof(x), c->v->abi, i, false);
		if (hist_exec_rule(i) && !hist_link(self, x))
			return false;
	}
	snprintf(hp->a_blob, sizeof(hp->a_blob), "%s.bin", aname);
	ret = aa_policy_compile(policy, env.parser, c->v->abi, hp->a, a.text,
				hp->a_blob, err, sizeof(err));
	/* A allows no write outside the policy directory: denying one adds nothing. */
	prof_add(&a, "  deny /%s_never w,\n", aname);
	snprintf(hp->alt_blob, sizeof(hp->alt_blob), "%s.alt.bin", aname);
	if (!ret && !a.overflow)
		ret = aa_policy_compile(policy, env.parser, c->v->abi, hp->a,
					a.text, hp->alt_blob, err, sizeof(err));
	if (ret || a.overflow)
		ksft_print_msg("history: cannot compile A: %s\n",
			       a.overflow ? "rules too long" : err);
	return !ret && !a.overflow;
}
