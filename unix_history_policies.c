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
 *   twice, a rule that grants nothing U's task asks (a deny of a write
 *   outside the run directory) and another name.  None of that decides
 *   anything ([perm]), so U' decides as U: the same errno, refused where
 *   U is and audited by U' where U is by U, and a route that drops or
 *   revokes the end for one drops it for the other.
 * - wider_user: under U, or under U widened (every unix operation, or
 *   rwk file rules on the run directory).  An allow rule added never
 *   refuses what was allowed ([perm], [file]): what U may do, the wider
 *   U may do, an end handed to U included.  The converse is no relation.
 *
 * Left out, and why: complain mode (what it allows is audited in a record
 * of its own, which the lane does not read yet); a stack as the
 * conjunction of its profiles (A allows everything, so A//&U decides as
 * U by construction, and an A that refuses would refuse the lane's own
 * set-up); owner rules (every file is root's); the OLD and the NEW ABI
 * on one rule (the pool's rules differ between them).
 */

static void check_hist_equiv(struct ctx *c)
{
	check_hist(c, REL_EQUIV);
}

static void check_hist_wider(struct ctx *c)
{
	check_hist(c, REL_WIDER);
}

/* Whether the task did what the case asks: delivered and allowed. */
static bool hist_did(const struct outcome *o)
{
	return o->step == STEP_DONE && !o->err && !o->fault;
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

TEST_F_TIMEOUT(history, equivalent_user, HISTORY_TIMEOUT)
{
	run_hist(_metadata, variant->abi, check_hist_equiv);
}

TEST_F_TIMEOUT(history, wider_user, HISTORY_TIMEOUT)
{
	run_hist(_metadata, variant->abi, check_hist_wider);
}
