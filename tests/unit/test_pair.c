/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `pair`'s control lines and its run against a scripted peer on a socketpair (the RDMA itself is
 * measured between two real kernels by tests/vm/pair.sh): the hello and rail lines parsed, hostile
 * ones refused; a peer that is not rdma-doctor, one that goes silent, one that closes, and one
 * whose rail fails: each run ends by its deadline with the failure named. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "probe/pair.h"
#include "util/util.h"

RD_TEST(pair_hello_lines)
{
	struct rd_pair_hello h;
	CHECK_INT(rd_pair_parse_hello("RDPAIR/1 node01 8 17000", &h), 0);
	CHECK_STR(h.host, "node01");
	CHECK_INT(h.nrails, 8);
	CHECK_INT(h.budget_ms, 17000);
	static const char *const bad[] = {"", "RDPAIR/1 node01 8", "RDPAIR/2 node01 8 1", "RDPAIR/1 no\x1b[31m 1 1",
					  "RDPAIR/1 node01 65 1", "RDPAIR/1 node01 -1 1", "RDPAIR/1 node01 1 0",
					  "RDPAIR/1 node01 1 3600001", "RDPAIR/1 node01 1 1 x", "RDPAIR/1 a;rm 1 1",
					  "RDPAIR/1 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 1 1", NULL};
	for (const char *const *b = bad; *b; b++)
		if (rd_pair_parse_hello(*b, &h) == 0)
			rd_test_fail(__FILE__, __LINE__, "'%s' was taken", *b);
}

RD_TEST(pair_rail_lines)
{
	struct rd_pair_qp_line q;
	CHECK_INT(rd_pair_parse_qp("QP rxe0 1 0 17 1234 3 00000000000000000000ffff0a090001 1 7f00aa001000 1a2b 2.5", &q), 0);
	CHECK_STR(q.device, "rxe0");
	CHECK_INT(q.port, 1);
	CHECK_INT(q.qpn, 17);
	CHECK_INT(q.psn, 1234);
	CHECK_INT(q.mtu, 3);
	CHECK(q.has_gid);
	CHECK_INT(q.gid[10], 0xff);
	CHECK_INT(q.gid[15], 1);
	CHECK_INT(q.gid_index, 1);
	CHECK_INT(q.addr, 0x7f00aa001000ull);
	CHECK_INT(q.rkey, 0x1a2b);
	CHECK(q.line_gbps == 2.5);
	CHECK_INT(rd_pair_parse_qp("QP mlx5_0 1 12 99 5 5 - -1 1000 1 400.0", &q), 0); /* InfiniBand: the LID */
	CHECK(!q.has_gid);
	CHECK_INT(q.lid, 12);
	static const char *const bad[] = {
		"QP rxe0 0 0 17 1 3 - -1 1 1 0",                       /* port 0 */
		"QP rxe0 1 0 16777216 1 3 - -1 1 1 0",                 /* a QPN over 24 bits */
		"QP rxe0 1 0 17 1 6 - -1 1 1 0",                       /* no such MTU */
		"QP rxe0 1 0 17 1 3 00ff - 1 1 0",                     /* a short GID */
		"QP rxe0 1 0 17 1 3 00000000000000000000FFFF0A090001 1 1 1 0", /* upper case */
		"QP rxe0 1 0 17 1 3 00000000000000000000ffff0a090001 -1 1 1 0", /* a GID without an index */
		"QP rxe0 1 0 17 1 3 - -1 1 100000000 0",               /* an rkey over 32 bits */
		"QP rxe0 1 0 17 1 3 - -1 1 1 nan",
		"QP rxe0 1 0 17 1 3 - -1 1 1 0 extra",
		"QP rx$(id) 1 0 17 1 3 - -1 1 1 0",
		"QP rxe0 1 0 17 1 3 - -1 1 1",
		"ERR x",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		if (rd_pair_parse_qp(bad[i], &q) == 0)
			rd_test_fail(__FILE__, __LINE__, "'%s' was taken", bad[i]);
}

/* A peer in a child process: writes script (the lines, "" = close at once, NULL = stay silent),
 * reading whatever comes. */
static pid_t peer(int fd, const char *script)
{
	pid_t pid = fork();
	if (pid == 0) {
		if (script)
			(void)!write(fd, script, strlen(script));
		if (!script || *script) {
			char buf[4096];
			while (read(fd, buf, sizeof buf) > 0)
				;
		}
		_exit(0);
	}
	close(fd);
	return pid;
}

static void run(const char *script, bool server, size_t nrails, long long deadline_ms, struct rd_pair_result *r, int *rc)
{
	int sv[2];
	CHECK_INT(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pid_t pid = peer(sv[1], script);
	struct rd_pair_rail_spec rails[1] = {{.device = "rd-no-such-dev", .port = 1, .gid_index = -1, .numa_node = -1}};
	struct rd_pair_opts o = {.rails = rails, .nrails = nrails, .host = "unit", .sizes = {4096}, .nsizes = 1,
				 .duration_ms = 10, .lat_iters = 10, .deadline_ms = rd_mono_ms() + deadline_ms};
	*rc = rd_pair_run(sv[0], server, &o, r);
	close(sv[0]);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

RD_TEST(pair_peer_not_rdma_doctor)
{
	struct rd_pair_result r;
	int rc;
	run("SSH-2.0-OpenSSH_9.2\n", false, 1, 5000, &r, &rc);
	CHECK_INT(rc, -1);
	CHECK(strstr(r.error, "the peer is not rdma-doctor pair (its first line: 'SSH-2.0-OpenSSH_9.2')") != NULL);
	rd_pair_result_free(&r);
}

/* a silent peer: the run ends at its deadline, not later */
RD_TEST(pair_peer_silent_ends_at_the_deadline)
{
	struct rd_pair_result r;
	int rc;
	long long t0 = rd_mono_ms();
	run(NULL, true, 1, 300, &r, &rc);
	long long took = rd_mono_ms() - t0;
	CHECK_INT(rc, -1);
	CHECK_STR(r.error, "no word from the peer before the deadline");
	CHECK(took >= 250 && took < 3000);
	rd_pair_result_free(&r);
}

RD_TEST(pair_peer_closes)
{
	struct rd_pair_result r;
	int rc;
	run("", false, 1, 5000, &r, &rc);
	CHECK_INT(rc, -1);
	CHECK(strstr(r.error, "closed the connection") || strstr(r.error, "control connection"));
	rd_pair_result_free(&r);
}

/* a rail this end cannot open (no such device here): it says ERR, reads the peer's rail line, and
 * the rail carries its own reason; the run itself went through */
RD_TEST(pair_rail_that_fails_here)
{
	struct rd_pair_result r;
	int rc;
	run("RDPAIR/1 peer01 1 5000\nQP rxe0 1 0 17 1 3 00000000000000000000ffff0a090001 1 1000 1 2.5\n", false, 1, 5000, &r,
	    &rc);
	CHECK_INT(rc, 0);
	CHECK_STR(r.peer, "peer01");
	CHECK_INT(r.nrails, 1);
	CHECK(r.rails[0].error != NULL);
	CHECK(strstr(r.rails[0].error, "rd-no-such-dev") || strstr(r.rails[0].error, "libibverbs"));
	CHECK_STR(r.rails[0].peer_device, "rxe0");
	CHECK(r.rails[0].gbps < 0 && r.rails[0].lat_us < 0);
	rd_pair_result_free(&r);
}

/* the peer's rail failed: its reason, named as the peer's */
RD_TEST(pair_rail_that_fails_there)
{
	struct rd_pair_result r;
	int rc;
	run("RDPAIR/1 peer01 1 5000\nERR ibv_reg_mr of 4194368 bytes: Cannot allocate memory\n", true, 1, 5000, &r, &rc);
	CHECK_INT(rc, 0);
	CHECK(r.rails[0].error != NULL);
	rd_pair_result_free(&r);
}

/* no rail at one end: the run says which end */
RD_TEST(pair_no_rails)
{
	struct rd_pair_result r;
	int rc;
	run("RDPAIR/1 peer01 0 5000\n", false, 1, 5000, &r, &rc);
	CHECK_INT(rc, -1);
	CHECK_STR(r.error, "the peer has no ACTIVE RDMA port");
	rd_pair_result_free(&r);
	run("RDPAIR/1 peer01 2 5000\n", false, 0, 5000, &r, &rc);
	CHECK_STR(r.error, "this host has no ACTIVE RDMA port");
	rd_pair_result_free(&r);
}

/* a line that never ends is refused at RD_PAIR_LINE_MAX, not read forever */
RD_TEST(pair_overlong_line)
{
	char *big = malloc(3 * RD_PAIR_LINE_MAX);
	memset(big, 'A', 3 * RD_PAIR_LINE_MAX - 1);
	big[3 * RD_PAIR_LINE_MAX - 1] = '\0';
	struct rd_pair_result r;
	int rc;
	run(big, false, 1, 5000, &r, &rc);
	CHECK_INT(rc, -1);
	CHECK(strstr(r.error, "longer than") != NULL);
	rd_pair_result_free(&r);
	free(big);
}
