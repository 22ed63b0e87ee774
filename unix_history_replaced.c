// SPDX-License-Identifier: GPL-2.0
/*
 * The lane's relations of replacement (unix_history_tests.c's machinery):
 * the peer's profile replaced by another version while its socket lives
 * (peer_replaced, unix_peer_tests.c's runs with random versions), and
 * what the lane found with a real replacement of A while a stack of it
 * lives, as rows (new_abi_stack_after_replacement).
 */

/*
 * What the lane found with a real replacement (seed 0x8d5476dd62a21787),
 * as rows: A//&U, U lacking k, w or r on the run directory, uses end 0
 * of a seqpacket pair A made on paths; A is replaced by a text that
 * means the same, before the stack or after it.  U refuses in both
 * ([label]: every profile of the stack decides; [replace]; [path]: the
 * file rules decide a socket on a path), and the record names U
 * ([audit]).
 */
static const struct {
	enum handoff_op op;
	enum hist_file f;	/* U's file rules: without k, w or r */
} stack_replaced_rows[] = {
	{ HOP_FLOCK_SH, F_RW },
	{ HOP_WRITE, F_R },
	{ HOP_READ, F_W },
};

static void stack_replaced_one(struct __test_metadata *_metadata,
			       const struct hist_profs *hp,
			       struct hist_case *hc)
{
	struct hist_got got;
	const char *u = hp->u[UK_PLAIN][hc->user];
	char w[512], o[512];
	int ret;

	ret = hist_worlds_got(hp, hc, 1, &got);
	ASSERT_EQ(0, ret) TH_LOG("cannot run: %s", strerror(-ret));
	hist_world_str(hc, AA_ABI_NEW, 0, w, sizeof(w));
	EXPECT_TRUE(got.o.step == STEP_OP && got.o.err == EACCES &&
		    (hp->afd < 0 ||
		     (got.audited == 1 && !strcmp(got.profile, u)))) {
		TH_LOG("%s: %s; U must refuse, audited by %s (%s)", w,
		       hist_got_str(&got, o, sizeof(o)), u,
		       "[label] [replace] [path] [audit]");
	}
}

static void check_stack_replaced(struct ctx *c)
{
	static const enum handoff_shape shapes[] = {
		HSHAPE_BOUND, HSHAPE_TO_BOUND,
	};
	struct __test_metadata *_metadata = c->metadata;
	struct hist_profs hp;
	struct hist_case hc;
	char why[160];
	size_t i, j;
	int after;

	if (!hist_names(c, &hp) || c->collect)
		return;
	hp.afd = audit_log_open(why, sizeof(why));
	if (hp.afd < 0)
		TH_LOG("refusals' audit records not compared: %s", why);
	for (i = 0; i < ARRAY_SIZE(stack_replaced_rows); i++) {
		for (j = 0; j < ARRAY_SIZE(shapes); j++) {
			for (after = 0; after < 2; after++) {
				hc = (struct hist_case){
					.shape = shapes[j],
					.type = SOCK_SEQPACKET,
					.op = stack_replaced_rows[i].op,
					.user = hist_user(U_ALL,
							  stack_replaced_rows[i].f),
					.peer = HPEER_REPLACE,
					.worlds = 1,
					.w[0] = { .how = HANDOFF_FORK,
						  .onto = ONTO_STACK,
						  .peer_after = after },
				};
				c->subs++;
				stack_replaced_one(_metadata, &hp, &hc);
			}
		}
	}
	if (hp.afd >= 0)
		close(hp.afd);
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

static enum hist_verdict hist_peer_case(struct ctx *c, u64 seed, int n,
					void *arg)
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
	if (ret || hpr->sh->s.step != STEP_DONE)
		return HV_NOT_RUN;
	if (same)
		return op[PEER_OLD].err ? HV_REFUSED :
		       op[PEER_OLD].step == STEP_DONE ? HV_ALLOWED :
							HV_NOT_REACHED;
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
		       aud[PEER_NEW] == 1 ? ", audited" : "", row->why[c->v->abi]);
	}
	return HV_DIFFER;
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

TEST_F_TIMEOUT(history, peer_replaced, HISTORY_TIMEOUT)
{
	run_hist(_metadata, variant->abi, check_hist_peer);
}

TEST(new_abi_stack_after_replacement)
{
	run_hist(_metadata, AA_ABI_NEW, check_stack_replaced);
}
