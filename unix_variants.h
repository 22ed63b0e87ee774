/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The af_unix fixture: every socket kind with every type, for the checks
 * that run on each.
 */

#ifndef _SELFTESTS_APPARMOR_UNIX_VARIANTS_H
#define _SELFTESTS_APPARMOR_UNIX_VARIANTS_H

#include "unix_test.h"

/* clang-format off */
FIXTURE(af_unix) {};

FIXTURE_VARIANT(af_unix) {
	enum sock_kind kind;
	int type;
};

FIXTURE_SETUP(af_unix) {}

FIXTURE_TEARDOWN(af_unix) {}

FIXTURE_VARIANT_ADD(af_unix, pathname_stream) {
	.kind = KIND_PATHNAME,
	.type = SOCK_STREAM,
};

FIXTURE_VARIANT_ADD(af_unix, pathname_dgram) {
	.kind = KIND_PATHNAME,
	.type = SOCK_DGRAM,
};

FIXTURE_VARIANT_ADD(af_unix, pathname_seqpacket) {
	.kind = KIND_PATHNAME,
	.type = SOCK_SEQPACKET,
};

FIXTURE_VARIANT_ADD(af_unix, abstract_stream) {
	.kind = KIND_ABSTRACT,
	.type = SOCK_STREAM,
};

FIXTURE_VARIANT_ADD(af_unix, abstract_dgram) {
	.kind = KIND_ABSTRACT,
	.type = SOCK_DGRAM,
};

FIXTURE_VARIANT_ADD(af_unix, abstract_seqpacket) {
	.kind = KIND_ABSTRACT,
	.type = SOCK_SEQPACKET,
};

FIXTURE_VARIANT_ADD(af_unix, unnamed_stream) {
	.kind = KIND_UNNAMED,
	.type = SOCK_STREAM,
};

FIXTURE_VARIANT_ADD(af_unix, unnamed_dgram) {
	.kind = KIND_UNNAMED,
	.type = SOCK_DGRAM,
};

FIXTURE_VARIANT_ADD(af_unix, unnamed_seqpacket) {
	.kind = KIND_UNNAMED,
	.type = SOCK_SEQPACKET,
};

FIXTURE_VARIANT_ADD(af_unix, autobind_stream) {
	.kind = KIND_AUTOBIND,
	.type = SOCK_STREAM,
};

FIXTURE_VARIANT_ADD(af_unix, autobind_dgram) {
	.kind = KIND_AUTOBIND,
	.type = SOCK_DGRAM,
};

FIXTURE_VARIANT_ADD(af_unix, autobind_seqpacket) {
	.kind = KIND_AUTOBIND,
	.type = SOCK_SEQPACKET,
};

/* clang-format on */

#endif /* _SELFTESTS_APPARMOR_UNIX_VARIANTS_H */
