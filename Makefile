# SPDX-License-Identifier: GPL-2.0
#
# First run: make -C ../../../.. headers

CFLAGS += -Wall -Wextra -O2 $(KHDR_INCLUDES)

LOCAL_HDRS += $(wildcard *.h)

# libapparmor is optional: without it the build still works and the
# confined cases SKIP.  Libraries are linked as pkg-config says; with
# LDFLAGS=-static everything is linked statically, for root filesystems
# without them (pkg-config then lists their private dependencies too).
PKG_CONFIG ?= pkg-config
PKG_LIBS := $(PKG_CONFIG) --libs $(if $(filter -static,$(LDFLAGS)),--static)
ifeq ($(shell $(PKG_CONFIG) --exists libapparmor 2>/dev/null && echo y),y)
APPARMOR_CFLAGS := -DHAVE_LIBAPPARMOR $(shell $(PKG_CONFIG) --cflags libapparmor)
APPARMOR_LIBS := $(shell $(PKG_LIBS) libapparmor)
else
$(warning libapparmor not found by $(PKG_CONFIG): tests that need it will SKIP)
endif

# liburing is optional: what uses io_uring SKIPs without it.
ifeq ($(shell $(PKG_CONFIG) --exists liburing 2>/dev/null && echo y),y)
URING_CFLAGS := -DHAVE_LIBURING $(shell $(PKG_CONFIG) --cflags liburing)
URING_LIBS := $(shell $(PKG_LIBS) liburing)
else
$(warning liburing not found by $(PKG_CONFIG): io_uring cases will SKIP)
endif

# What both AF_UNIX test programs are built from besides their own file.
UNIX_SRCS := common.c policy.c profile.c unix_core.c unix_scenario.c unix_perms.c
UNIX_SRCS += kernel_reports.c
# The areas of aa_unix_mediation: included by aa_unix_mediation.c, not
# linked, since the harness keeps one list of tests per translation unit.
UNIX_AREAS := unix_rules_tests.c
UNIX_AREAS += unix_handoff_tests.c
UNIX_AREAS += unix_labels_tests.c
UNIX_AREAS += unix_peer_tests.c
UNIX_AREAS += unix_audit_tests.c
UNIX_AREAS += unix_profiles_tests.c
UNIX_AREAS += unix_stack_tests.c
UNIX_AREAS += unix_history_tests.c
UNIX_AREAS += unix_history_policies.c
UNIX_AREAS += unix_history_profiles.c
UNIX_AREAS += unix_history_replaced.c
UNIX_AREAS += unix_carried_tests.c
UNIX_AREAS += unix_history_files.c
LOCAL_HDRS += $(UNIX_AREAS)
# unix_fixes_test's, included by unix_fixes_test.c for the same reason.
LOCAL_HDRS += unix_fixes_refs.c unix_fixes_race.c

TEST_GEN_PROGS := aa_unix_mediation
TEST_GEN_PROGS += af_unix_send_perf
# Last, and apart: a kernel that lacks one of these fixes may oops.
TEST_GEN_PROGS += unix_fixes_test
TEST_GEN_PROGS_EXTENDED += perf_verdict_test
TEST_GEN_PROGS_EXTENDED += perf_baseline_test
TEST_PROGS_EXTENDED += run_perf.sh

include ../lib.mk

UNIX_PROGS := $(OUTPUT)/aa_unix_mediation $(OUTPUT)/unix_fixes_test
$(UNIX_PROGS): CFLAGS += $(APPARMOR_CFLAGS) $(URING_CFLAGS)
$(UNIX_PROGS): LDLIBS += $(APPARMOR_LIBS) $(URING_LIBS)
$(OUTPUT)/aa_unix_mediation: aa_unix_mediation.c $(UNIX_SRCS)
$(OUTPUT)/aa_unix_mediation: unix_handoff.c unix_handoff_ops.c
$(OUTPUT)/aa_unix_mediation: audit_log.c
$(OUTPUT)/aa_unix_mediation: unix_history.c
$(OUTPUT)/aa_unix_mediation: unix_carried.c
$(OUTPUT)/unix_fixes_test: unix_fixes_test.c $(UNIX_SRCS)

PERF_SRCS := perf_verdict.c perf_baseline.c
# af_unix_send_perf's own files besides its main one.
SEND_SRCS := send_workload.c

$(OUTPUT)/af_unix_send_perf: af_unix_send_perf.c $(SEND_SRCS) $(PERF_SRCS) \
	common.c
$(OUTPUT)/af_unix_send_perf: CFLAGS += $(URING_CFLAGS)
$(OUTPUT)/af_unix_send_perf: LDLIBS += $(URING_LIBS) -lm
$(OUTPUT)/perf_verdict_test: perf_verdict_test.c perf_verdict.c
$(OUTPUT)/perf_verdict_test: LDLIBS += -lm
$(OUTPUT)/perf_baseline_test: perf_baseline_test.c perf_baseline.c
$(OUTPUT)/perf_baseline_test: LDLIBS += -lm
