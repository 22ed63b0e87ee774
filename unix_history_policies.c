// SPDX-License-Identifier: GPL-2.0
/*
 * The random lane's second oracle: relations between policies.  Judged
 * by history independence alone, the lane cannot see a kernel that is
 * wrong the same way in every history: a rule matched too widely, or a
 * check that always asks the wrong profile.  Here a case runs one
 * history twice, under two policies whose meanings are related, and
 * both outcomes come from the kernel: there is still no model of the
 * rules.  The cases are drawn as the other relations' are
 * (unix_history.c), by a route that needs no exec rule of A's, since
 * those name the pool's U alone, and run by unix_history_tests.c.
 *
 * - equivalent_user: under U, or under U', which has U's rules written
 *   twice, its file rules once more as single-path rules for the ends'
 *   own paths, rules that grant nothing U's task asks (a deny of a write
 *   outside the run directory; in the NEW ABI every unix operation with
 *   a peer label, and from an address, that no socket of the lane has)
 *   and another name.  None of that decides anything ([perm], [peer]),
 *   so U' decides as U: the same errno, refused where U is and audited
 *   by U' where U is by U, record for record, and a route that drops or
 *   revokes the end for one drops it for the other.  A rule matched too
 *   widely shows here.
 * - wider_user: under U, or under U widened (every unix operation, or
 *   rwk file rules on the run directory).  An allow rule added never
 *   refuses what was allowed ([perm], [file]): what U may do, the wider
 *   U may do, an end handed to U included.  The converse is no relation.
 * - complain_user: under U, or under U in complain mode.  Complain mode
 *   allows what U refuses and audits it as ALLOWED ([complain]): where U
 *   was refused the operation, or its end on the way, the complain-mode
 *   task does it, and a refusal at the operation is an ALLOWED record of
 *   U's; where U was allowed, the same outcome and no ALLOWED record.
 * - stacked_users: under U, under a second U2, or under the stack U//&U2
 *   (by name: change_profile, change_onexec).  A stack decides as the
 *   conjunction of its profiles ([label]): the stack does the operation
 *   (delivered and allowed) exactly where U and U2 each do, and its
 *   refusal at the operation is audited by a profile that refused it
 *   alone ([audit]).
 * - stacked_peers: the same task U, its pair made, used first and end 1
 *   kept by a peer P, by a second P2, or by their stack P//&P2, instead
 *   of A (by a change, a fork or SCM_RIGHTS: P has no exec rule).  The
 *   P's grant every unix operation among themselves and differ in what
 *   they grant a U; they are written in the NEW ABI in both tests (the
 *   OLD ABI's network rules have no peer=(): a P refusing U would refuse
 *   its own pair).  A stacked peer decides as its profiles together
 *   ([label], [peer]): U does the operation exactly where it does with P
 *   and with P2, and a refusal is audited by a profile that refused
 *   alone.
 * - owner_user: ends on paths, made by A (root's, as the task is) or given
 *   to another user once bound (the test does that, at the peer's event
 *   of a fork: the only route with one); U with its file rules on the run
 *   directory as owner rules decides as U for files the task owns, and
 *   as U without them (the pool's U with "r" there) for the others
 *   ([owner]: an owner rule applies where the task's fsuid owns the file).
 *   The same outcome, audited alike, record for record.
 * - other_abi_user: under U, or under U of the other ABI's pool (the
 *   OLD ABI's in the NEW ABI's test, and the converse), where both say
 *   the same: permission subsets and types, on a socketpair or abstract
 *   names ([old]: with unix mediation, the coarse rules decide as [send]
 *   and [peer] say; they see no peer label, address or path, and paths
 *   are open question Q3).  The same outcome, audited alike; not the
 *   record's fields, which are each ABI's own.
 * - address_user: U stacked with a D, which allows every unix operation
 *   and U's files but denies, audited, send or receive where end 0
 *   (addr=) or its peer (peer=(addr=)) has an address: none, end 0's
 *   abstract name or end 1's.  Where the end has that address, U//&D
 *   decides as U stacked with a D denying it at every address; where it
 *   has another, as U stacked with a D that denies nothing ([addr],
 *   [label]).  The same outcome, audited alike, record for record (a
 *   refusal by either D is D's).  Ends not on paths: unix rules decide
 *   no socket on a path ([path]); and no listener, which has no peer
 *   for peer=(addr=) to match.  D is written in the NEW ABI, U in
 *   either (a stack decides as each of its profiles, in its own ABI).
 * A quarter of the cases of each have an unconfined creator: its ends are
 * delegated ([deleg]), which changes nothing any relation asks.
 *
 * Here too are the reading of a world's audit records, stacked_peers'
 * P's, and the judges of one world against another's use, which the
 * route relations share: a route's delivery against the change_profile
 * world's write and read, and open question Q5 in equivalent_user; and
 * of a world against its own records, in every relation but wider_user:
 * a refusal is audited, and what is audited as refused was refused
 * ([audit]), so a kernel that audits and then allows, or refuses
 * quietly, fails in every history alike.
 *
 * Each test registers its own ABI's pool; other_abi_user names the other
 * ABI's U, and the OLD ABI's stacked_peers the P's, which the other test
 * registers (all are loaded at once).
 */

/*
 * Whether U may use end 0 as it was opened, reading and writing, in
 * world @w: 1 or 0, with both outcomes in @g->as_opened, or -errno.
 */
static int hist_may_use(const struct hist_profs *hp,
			const struct hist_case *hc, int w, struct hist_got *g)
{
	static const enum handoff_op ops[] = { HOP_WRITE, HOP_READ };
	struct hist_case t = *hc;
	struct outcome o[2];
	char s[2][48];
	int i, ret, may = 1;

	for (i = 0; i < 2; i++) {
		t.op = ops[i];
		ret = hist_run(hp, &t, w, &o[i]);
		if (ret)
			return ret;
		if (hist_timed_out(&o[i]))
			return -ETIMEDOUT;
		may &= o[i].step == STEP_DONE && !o[i].err && !o[i].fault;
		outcome_str(&o[i], s[i], sizeof(s[i]));
	}
	snprintf(g->as_opened, sizeof(g->as_opened),
		 "as opened: write %s, read %s", s[0], s[1]);
	return may;
}

/*
 * A route that checks the end on its way (SCM_RIGHTS, an exec) delivers
 * it to U exactly when U may use it as it was opened, reading and
 * writing ([carry]), as the same use in the change_profile world shows.
 * For worlds @i and @j: 1 if a delivery contradicts that, 0 if one was
 * refused on its way as it should be, or delivered as open question Q3
 * of SEMANTICS has it (OLD ABI, the peer on a path: not revalidated;
 * @v then says which), -errno if the change_profile world's use could
 * not be run, 2 if there is nothing to judge (no such pair).
 */
static int hist_delivery(const struct hist_profs *hp,
			 const struct hist_case *hc,
			 struct hist_got got[HIST_WORLDS], unsigned int i,
			 unsigned int j, enum hist_verdict *v)
{
	const struct hist_world *route = &hc->w[j];
	bool delivered = got[j].o.fault != FAULT_NOT_INSTALLED;
	int may;

	/* A listener's use is accept(), not reading and writing. */
	if (handoff_shape_listens(hc->shape) ||
	    hc->w[i].how != HANDOFF_CHANGE || hc->w[i].made_there ||
	    (route->how != HANDOFF_EXEC && route->how != HANDOFF_PASS) ||
	    hist_not_delivered(&got[i].o) ||
	    (delivered && hist_not_delivered(&got[j].o)))
		return 2;
	may = hist_may_use(hp, hc, i, &got[i]);
	if (!may && delivered && hp->abi == AA_ABI_OLD &&
	    (hc->shape == HSHAPE_BOUND || hc->shape == HSHAPE_TO_BOUND)) {
		*v = HV_Q3;
		return 0;
	}
	if (may < 0 || may != delivered)
		return may < 0 ? may : 1;
	if (!delivered)
		*v = HV_REFUSED;
	return delivered ? 2 : 0;
}

/*
 * Whether worlds @a (U) and @b (U') differ as open question Q5 of
 * SEMANTICS has it: U' has a rule for a peer label no task has, and the
 * kernel asks accept of the listener's own address alone, where that
 * rule's accept is found, so U' accepts what U may not.
 */
static bool hist_q5(const struct hist_profs *hp, const struct hist_case *hc,
		    const struct hist_got *a, const struct hist_got *b)
{
	return hp->abi == AA_ABI_NEW && hc->op == HOP_ACCEPT &&
	       !hc->w[0].kind && hc->w[1].kind == UK_EQUIV &&
	       a->o.step == STEP_OP && a->o.err == EACCES &&
	       b->o.err != EACCES && b->o.err != EPERM;
}

/* Whether the task did what the case asks: delivered and allowed. */
static bool hist_did(const struct outcome *o)
{
	return o->step == STEP_DONE && !o->err && !o->fault;
}

/*
 * Whether @op names a hook of the task's operation: aa_file_perm() (a
 * file, or a socket's revalidation) and a socket's own hooks, which a
 * write() or read() also meets.
 */
static bool hist_op_hook(const char *op)
{
	static const char *const ops[] = {
		"file_perm", "file_lock", "sendmsg", "recvmsg", "accept",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ops); i++)
		if (!strcmp(op, ops[i]))
			return true;
	return false;
}

/*
 * Whether a DENIED record of the task's, of operation @op, contradicts
 * its outcome @o: it went on past the step the record refuses.  Its
 * end's making (made there) is a step of its own; the hooks of the
 * operation itself refuse an operation that was not done.  Not the
 * route's checks (exec, SCM_RIGHTS), which may refuse other descriptors.
 */
static bool hist_unenforced(const struct outcome *o, const char *op)
{
	static const char *const made[] = { "create", "bind", "listen" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(made); i++)
		if (!strcmp(op, made[i]))
			return o->step > STEP_CREATE;
	return hist_op_hook(op) && hist_did(o);
}

/* What world @g's own records contradict ([audit]), or NULL. */
static const char *hist_audit_wrong(const struct hist_got *g)
{
	if (g->unenforced[0])
		return "audited as refused what the task went on to do ([audit])";
	if (g->unaudited)
		return "refused with no DENIED record ([audit])";
	return NULL;
}

/* The mark's process: a socket() refused under U with no unix rule. */
static void hist_mark_main(void *arg)
{
	int fd;

	if (aa_confine(arg))
		return;
	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (fd >= 0)
		close(fd);
}

/*
 * A world's records: a refusal of the operation by its task (@pid_kv:
 * " pid=N ", "" if it never ran), or in complain mode what it was
 * allowed, by a hook of the operation (hist_op_hook()).  Not of the
 * route's own checks (exec, SCM_RIGHTS), in which the same task may
 * refuse other descriptors.
 */
struct hist_refusal {
	char pid_kv[32];
	const char *verdict;	/* apparmor="DENIED" or "ALLOWED" */
	struct hist_got *got;	/* the first record's fields */
	int n;			/* records of the operation */
	int denied;		/* enforce mode: the task's DENIED records */
};

/* @rec's @key, or "-" if it has none. */
static void hist_field(const char *rec, const char *key, char *val,
		       size_t len)
{
	if (!audit_field(rec, key, val, len))
		snprintf(val, len, "-");
}

static void hist_refusal(const char *rec, struct hist_refusal *r)
{
	struct hist_got *g = r->got;
	char op[32], req[16], den[16];

	if (!strstr(rec, r->verdict) ||
	    !audit_field(rec, "operation", op, sizeof(op)))
		return;
	if (r->denied >= 0) {
		r->denied++;
		if (!g->unenforced[0] && hist_unenforced(&g->o, op))
			snprintf(g->unenforced, sizeof(g->unenforced), "%s",
				 op);
	}
	if (!hist_op_hook(op) || r->n++)
		return;
	hist_field(rec, "profile", g->profile, sizeof(g->profile));
	snprintf(g->op, sizeof(g->op), "%s", op);
	/* A file's masks, or a socket's. */
	if (!audit_field(rec, "requested_mask", req, sizeof(req)))
		hist_field(rec, "requested", req, sizeof(req));
	if (!audit_field(rec, "denied_mask", den, sizeof(den)))
		hist_field(rec, "denied", den, sizeof(den));
	snprintf(g->masks, sizeof(g->masks), "requested %s denied %s", req,
		 den);
	hist_field(rec, "peer", g->peer, sizeof(g->peer));
}

/* Worlds' records, each to the world whose task it names. */
struct hist_records {
	struct hist_refusal r[HIST_WORLDS];
	unsigned int n;
};

static bool hist_record(const char *rec, void *arg)
{
	struct hist_records *rs = arg;
	unsigned int i;

	for (i = 0; i < rs->n; i++) {
		if (rs->r[i].pid_kv[0] && strstr(rec, rs->r[i].pid_kv)) {
			hist_refusal(rec, &rs->r[i]);
			return true;
		}
	}
	return false;
}

/*
 * Reads the records of worlds @got[0..@n), up to one mark: whether each
 * world's refusal of its operation was audited, the record's fields then
 * in it; in complain mode (@complain[i]) whether what it was allowed was
 * audited (as ALLOWED) instead; in enforce mode, what its records
 * contradict ([audit]).  0, or -errno if the mark did not come.
 */
static int hist_audited(const struct hist_profs *hp, struct hist_got *got,
			const bool *complain, unsigned int n)
{
	struct hist_records rs = { .n = n };
	char mark_kv[32];
	const char *const mark[] = { "apparmor=\"DENIED\"",
				     "operation=\"create\"", mark_kv, NULL };
	struct outcome m = { .step = STEP_DONE };
	bool judged[HIST_WORLDS], at_op[HIST_WORLDS], any = false;
	unsigned int i;
	pid_t pid;
	int ret;

	for (i = 0; i < n; i++) {
		const struct outcome *o = &got[i].o;

		at_op[i] = o->step == STEP_OP || o->step == STEP_RETRY;
		judged[i] = complain[i] ?
			    at_op[i] || o->step == STEP_DONE :
			    at_op[i] && (o->err == EACCES || o->err == EPERM);
		/* In enforce mode every world's records are read. */
		any |= judged[i] || !complain[i];
		rs.r[i] = (struct hist_refusal){
			.got = &got[i],
			.verdict = complain[i] ? "apparmor=\"ALLOWED\"" :
						 "apparmor=\"DENIED\"",
			.denied = complain[i] ? -1 : 0,
		};
		if (o->pid > 0)
			snprintf(rs.r[i].pid_kv, sizeof(rs.r[i].pid_kv),
				 " pid=%d ", o->pid);
	}
	if (hp->afd < 0 || !any)
		return 0;
	pid = spawn(hist_mark_main,
		    (void *)hp->u[UK_PLAIN][hist_user(U_NO_UNIX, F_R)]);
	if (pid < 0)
		return pid;
	reap(&m, pid);
	snprintf(mark_kv, sizeof(mark_kv), " pid=%d ", pid);
	ret = audit_log_scan(hp->afd, mark, hist_record, &rs, HISTORY_AUDIT_MS);
	if (ret < 0)
		return ret;
	for (i = 0; i < n; i++) {
		got[i].unaudited = !complain[i] && at_op[i] &&
				   got[i].o.err == EACCES && !rs.r[i].denied;
		/* A record of no refusal of the operation is not its outcome. */
		got[i].audited = judged[i] && rs.r[i].n > 0;
		if (!got[i].audited)
			got[i].profile[0] = '\0';
	}
	return 0;
}

/* World @w's D, or NULL if its U is alone. */
static const char *hist_deny_of(const struct hist_profs *hp,
				const struct hist_case *hc, int w)
{
	const char (*d)[NAME_MAX_LEN] = hp->d[hc->deny_receive];

	switch (hc->w[w].deny) {
	case DENY_NOTHING:
		return hp->d_nothing;
	case DENY_ALL:
		return d[AT_COUNT * ADDR_COUNT];
	case DENY_AT:
		return d[hc->deny_at * ADDR_COUNT + hc->deny_addr];
	default:
		return NULL;
	}
}

/* Who makes world @w's pair and keeps end 1: A, P, P2 or P//&P2. */
static const char *hist_maker_label(const struct hist_profs *hp,
				    const struct hist_case *hc, int w,
				    char *buf, size_t len)
{
	const char *p = hp->p[hc->peer_user], *p2 = hp->p[hc->user2];

	switch (hc->w[w].maker) {
	case MAKER_PEER:
		return p;
	case MAKER_PEER2:
		return p2;
	case MAKER_BOTH:
		return hist_stack_name(p, p2, buf, len);
	default:
		return hp->a;
	}
}

/* Whether AppArmor refused the task the operation, or its end on the way. */
static bool hist_refused(const struct outcome *o)
{
	return hist_not_delivered(o) || o->err == EACCES || o->err == EPERM;
}

static bool hist_at_op(const struct outcome *o)
{
	return o->step == STEP_OP || o->step == STEP_RETRY;
}

/*
 * Every world of @hc, with its record: 0, -ETIMEDOUT if one did not
 * finish, else -errno if one could not be set up.
 */
static int hist_worlds(const struct hist_profs *hp, const struct hist_case *hc,
		       struct hist_got got[HIST_WORLDS])
{
	unsigned int i;
	int ret;

	ret = hist_worlds_got(hp, hc, hc->worlds, got);
	for (i = 0; !ret && i < hc->worlds; i++)
		if (hist_timed_out(&got[i].o))
			return -ETIMEDOUT;
	return ret;
}

/*
 * What is wrong with a complain_user case (world 0: U, 1: U in complain
 * mode), or NULL.
 */
static const char *hist_complain_wrong(const struct hist_got got[2])
{
	const struct hist_got *e = &got[0], *m = &got[1];

	if (!hist_refused(&e->o) && !outcome_eq(&e->o, &m->o))
		return "complain mode decided otherwise where U allowed ([complain])";
	if (!hist_refused(&e->o))
		return m->audited ?
		       "complain mode audited as ALLOWED what U allowed ([complain])" :
		       NULL;
	if (!hist_did(&m->o))
		return "complain mode did not allow what U refused ([complain])";
	if (hist_at_op(&e->o) && e->audited && (!m->audited || !m->by_u))
		return "complain mode allowed what U refused, not audited by U ([audit])";
	return NULL;
}

/*
 * What is wrong with a stacked_users case (U, U2, U//&U2), or with a
 * stacked_peers case (P, P2, P//&P2), or NULL.
 */
static const char *hist_conj_wrong(enum hist_rel rel,
				   const struct hist_got got[3])
{
	const struct hist_got *st = &got[2];
	bool by_refuser = false, refuser_audited = false;
	int i;

	if (hist_did(&st->o) != (hist_did(&got[0].o) && hist_did(&got[1].o)))
		return rel == REL_CONJ ?
		       "the stack did not decide as U and U2 together ([label])" :
		       "a stacked peer did not decide as P and P2 together ([label], [peer])";
	if (!hist_at_op(&st->o) || !hist_refused(&st->o))
		return NULL;
	for (i = 0; i < 2; i++) {
		if (!hist_at_op(&got[i].o) || !got[i].audited)
			continue;
		refuser_audited = true;
		by_refuser |= !strcmp(st->profile, got[i].profile);
	}
	if (refuser_audited && (!st->audited || !by_refuser))
		return "the stack's refusal not audited by a profile that refused alone ([audit])";
	return NULL;
}

/* complain_user's, stacked_users' and stacked_peers' judge. */
static enum hist_verdict hist_rel_case(struct ctx *c, u64 seed, int n,
				       void *arg)
{
	struct __test_metadata *_metadata = c->metadata;
	const struct hist_profs *hp = ((struct hist_arg *)arg)->hp;
	enum hist_rel rel = ((struct hist_arg *)arg)->rel;
	bool conj = rel == REL_CONJ || rel == REL_PEER_CONJ;
	struct hist_got got[HIST_WORLDS];
	const char *wrong = NULL;
	enum hist_verdict v;
	struct hist_case hc;
	unsigned int i = 0;
	int ret, tries;

	hist_gen(&hc, seed, rel);
	/* A contradiction must show again: one slow world is not a bug. */
	for (tries = 0; tries < 2; tries++) {
		ret = hist_worlds(hp, &hc, got);
		if (ret)
			break;
		for (i = 0; i < hc.worlds && !hist_audit_wrong(&got[i]); i++)
			;
		wrong = i < hc.worlds ? hist_audit_wrong(&got[i]) :
			conj ? hist_conj_wrong(rel, got) :
			       hist_complain_wrong(got);
		if (!wrong)
			break;
	}
	ksft_print_msg("history %s case %d seed %#llx: %s\n",
		       hist_rel_name[rel], n, seed,
		       ret == -ETIMEDOUT ? "a world timed out" :
		       ret ? "not run" : wrong ? "WRONG" :
		       hv_name[hist_alike(&got[conj ? 2 : 0].o)]);
	EXPECT_TRUE(!ret || ret == -ETIMEDOUT) {
		TH_LOG("seed %#llx: cannot run: %s", seed, strerror(-ret));
	}
	if (ret)
		return HV_NOT_RUN;
	if (!wrong)
		return hist_alike(&got[conj ? 2 : 0].o);
	if (i < hc.worlds) {
		hist_pair(&hc, got, i, i, &v);
		hist_fail(c, &hc, got, wrong);
		return v;
	}
	hist_fail(c, &hc, got, wrong);
	if (conj) {
		hc.w[0] = hc.w[1];
		hc.w[1] = hc.w[2];
		hist_fail(c, &hc, &got[1], "and the second and the stack");
	}
	return HV_DIFFER;
}

/*
 * Both worlds of a wider_user case: 1 if U did what the wider U was
 * refused (or not handed), 0 if not, -ETIMEDOUT if a world did not
 * finish, else -errno if one could not be set up.
 */
static int hist_wider_run(const struct hist_profs *hp,
			  const struct hist_case *hc, struct hist_got got[2])
{
	int i, ret;

	for (i = 0; i < 2; i++) {
		got[i] = (struct hist_got){ };
		ret = hist_run(hp, hc, i, &got[i].o);
		if (ret)
			return ret;
		if (hist_timed_out(&got[i].o))
			return -ETIMEDOUT;
	}
	return hist_did(&got[0].o) && !hist_did(&got[1].o);
}

static enum hist_verdict hist_wider_case(struct ctx *c, u64 seed, int n,
					 void *arg)
{
	struct __test_metadata *_metadata = c->metadata;
	const struct hist_profs *hp = ((struct hist_arg *)arg)->hp;
	struct hist_got got[2];
	struct hist_case hc;
	enum hist_verdict v;
	int ret;

	hist_gen(&hc, seed, REL_WIDER);
	ret = hist_wider_run(hp, &hc, got);
	/* A contradiction must show again: one slow world is not a bug. */
	if (ret == 1)
		ret = hist_wider_run(hp, &hc, got);
	v = ret < 0 ? HV_NOT_RUN : ret ? HV_DIFFER : hist_alike(&got[0].o);
	ksft_print_msg("history wider_user case %d seed %#llx: %s\n", n, seed,
		       ret == -ETIMEDOUT ? "a world timed out" :
		       ret < 0 ? "not run" : ret ? "DIFFER" : hv_name[v]);
	EXPECT_TRUE(ret >= 0 || ret == -ETIMEDOUT) {
		TH_LOG("seed %#llx: cannot run: %s", seed, strerror(-ret));
	}
	if (ret == 1)
		hist_fail(c, &hc, got, "U did it, a wider U did not ([perm])");
	return v;
}

HIST_TEST(equivalent_user, REL_EQUIV)

HIST_TEST(wider_user, REL_WIDER)

HIST_TEST(complain_user, REL_COMPLAIN)

HIST_TEST(stacked_users, REL_CONJ)

HIST_TEST(owner_user, REL_OWNER)

HIST_TEST(stacked_peers, REL_PEER_CONJ)

HIST_TEST(other_abi_user, REL_OTHER_ABI)

HIST_TEST(address_user, REL_ADDR)
