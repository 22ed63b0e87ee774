# SPDX-License-Identifier: GPL-2.0
#
# First run: make -C ../../../.. headers

CFLAGS += -Wall -Wextra -O2 $(KHDR_INCLUDES)

LOCAL_HDRS += $(wildcard *.h)

# libapparmor is optional: without it the build still works and the cases
# that need it SKIP.  Link it statically when the archive exists so that the
# installed tests also run on a root filesystem without the library.
PKG_CONFIG ?= pkg-config
ifeq ($(shell $(PKG_CONFIG) --exists libapparmor 2>/dev/null && echo y),y)
APPARMOR_CFLAGS := -DHAVE_LIBAPPARMOR $(shell $(PKG_CONFIG) --cflags libapparmor)
APPARMOR_STATIC := $(filter /%,$(shell $(CC) -print-file-name=libapparmor.a))
ifneq ($(APPARMOR_STATIC),)
APPARMOR_LIBS := $(APPARMOR_STATIC)
else
APPARMOR_LIBS := $(shell $(PKG_CONFIG) --libs libapparmor)
endif
else
$(warning libapparmor not found by $(PKG_CONFIG): tests that need it will SKIP)
endif

TEST_GEN_PROGS := aa_unix_mediation

# af_unix_send_perf (perf_*.c): liburing is optional, the io_uring workload
# SKIPs without it.  Static when liburing.a exists, like libapparmor above.
ifeq ($(shell $(PKG_CONFIG) --exists liburing 2>/dev/null && echo y),y)
URING_CFLAGS := -DHAVE_LIBURING $(shell $(PKG_CONFIG) --cflags liburing)
URING_STATIC := $(filter /%,$(shell $(CC) -print-file-name=liburing.a))
ifneq ($(URING_STATIC),)
URING_LIBS := $(URING_STATIC)
else
URING_LIBS := $(shell $(PKG_CONFIG) --libs liburing)
endif
else
$(warning liburing not found by $(PKG_CONFIG): the io_uring workload will SKIP)
endif
TEST_GEN_PROGS += af_unix_send_perf
TEST_GEN_PROGS_EXTENDED += perf_report perf_stats_test
TEST_PROGS_EXTENDED += run_perf.sh aba_report.sh

include ../lib.mk

$(OUTPUT)/aa_unix_mediation: aa_unix_mediation.c common.c policy.c unix_scenario.c
$(OUTPUT)/aa_unix_mediation: CFLAGS += $(APPARMOR_CFLAGS)
$(OUTPUT)/aa_unix_mediation: LDLIBS += $(APPARMOR_LIBS)

$(OUTPUT)/af_unix_send_perf: af_unix_send_perf.c perf_stats.c common.c policy.c
$(OUTPUT)/af_unix_send_perf: CFLAGS += $(URING_CFLAGS) $(APPARMOR_CFLAGS)
$(OUTPUT)/af_unix_send_perf: LDLIBS += $(URING_LIBS) $(APPARMOR_LIBS) -lm
$(OUTPUT)/perf_report: perf_report.c perf_stats.c
$(OUTPUT)/perf_report: LDLIBS += -lm
$(OUTPUT)/perf_stats_test: perf_stats_test.c perf_stats.c
$(OUTPUT)/perf_stats_test: LDLIBS += -lm
