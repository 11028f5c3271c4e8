/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The measurement between two hosts (`rdma-doctor pair serve` and `pair HOST`): per rail (an
 * Active port of each end, the i-th with the i-th), an RC queue pair whose attributes are traded
 * over a TCP connection, as NCCL trades them over its bootstrap socket (NCCL does not use
 * rdma_cm: it picks the GID itself, so the GID here is the one NCCL picks, roce.gid's rule),
 * then RDMA WRITE bandwidth from the client to the server at each message size for a set time,
 * and a ping-pong of 8-byte RDMA WRITEs, each end spinning on its own memory (perftest's
 * ib_write_lat): the latency is half the median round trip.
 *
 * The control lines (one per message, at most RD_PAIR_LINE_MAX bytes, both ends the same):
 *   RDPAIR/1 HOST NRAILS MS                   hello; the rails measured are min(ours, theirs);
 *                                              MS: the client's time for the run (the server's
 *                                              waits end by then too)
 *   QP DEV PORT LID QPN PSN MTU GID GIDX ADDR RKEY LINE   a rail's end, or  ERR TEXT
 *   RTS                                        the QP is ready, or  ERR TEXT
 *   LAT N                                      (client) the ping-pong starts, N round trips at
 *                                              most (the client ends it sooner at its duration,
 *                                              with a stop word in place of the next number)
 *   END                                        the rail is done (both ends)
 * A peer's line that is not one of these ends the run with an error naming it; every wait ends
 * at the deadline.  Nothing here prints.  The caller contains the run (a child process under a
 * watchdog: cmd/pair.c), since a provider can crash or hang.
 *
 * Ownership: rd_pair_run fills an rd_pair_result that owns its strings and rails;
 * rd_pair_result_free releases them.  Every verbs object is destroyed before a rail ends. */
#ifndef RD_PROBE_PAIR_H
#define RD_PROBE_PAIR_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RD_PAIR_PORT 18516    /* TCP; perftest's default is 18515, which may run beside */
#define RD_PAIR_LINE_MAX 512
#define RD_PAIR_RAILS_MAX 64
#define RD_PAIR_SIZES_MAX 4
#define RD_PAIR_DATA (4u << 20) /* bytes written to at each end: the largest message size */

/* One local rail, from the host's model. */
struct rd_pair_rail_spec {
	char device[64];
	unsigned port;
	int gid_index;     /* NCCL's choice on RoCE; -1 on InfiniBand (the LID) */
	double line_gbps;  /* the port's rate, 0 unknown */
	int numa_node;     /* of the HCA, -1 unknown: the buffers are placed there */
};

struct rd_pair_opts {
	const struct rd_pair_rail_spec *rails;
	size_t nrails;
	const char *host;           /* this end's name in the hello */
	uint64_t sizes[RD_PAIR_SIZES_MAX]; /* message sizes, bytes (the client's are used) */
	size_t nsizes;
	unsigned duration_ms;       /* each size's bandwidth run */
	unsigned lat_iters;         /* round trips, at most (the client stops after duration_ms) */
	long long deadline_ms;      /* rd_mono_ms() by which every wait ends; the server's waits end
				     * by the client's time too (the hello) */
};

struct rd_pair_size {
	uint64_t bytes;
	double gbps;
	uint64_t writes;
};

struct rd_pair_rail {
	char *device, *peer_device;
	unsigned port, peer_port;
	char *gid;                  /* ours, text; NULL on InfiniBand */
	int gid_index;
	double line_gbps;           /* the lower of the two ends' known rates, 0 unknown */
	struct rd_pair_size sizes[RD_PAIR_SIZES_MAX];
	size_t nsizes;
	double gbps;                /* the best size's, < 0 not measured */
	double lat_us, lat_p99_us;  /* half a round trip, < 0 not measured */
	unsigned lat_iters;         /* round trips made (the client stops at its duration) */
	char *error;                /* NULL when measured */
};

struct rd_pair_result {
	char *peer;                 /* the peer's name from its hello */
	struct rd_pair_rail *rails;
	size_t nrails;
	char *error;                /* the run's own failure (no hello, a bad line), NULL when none */
};

/* Runs one measurement on the connected TCP socket fd, as the server (written to) or the client
 * (writing).  Returns 0 when the run went through its rails (each may still have an error), or
 * -1 with r->error. */
int rd_pair_run(int fd, bool server, const struct rd_pair_opts *o, struct rd_pair_result *r);
void rd_pair_result_free(struct rd_pair_result *r);

/* Parsers of the peer's lines, apart for tests and fuzzing: 0, or -1 when the line is not one. */
struct rd_pair_hello {
	char host[64];
	unsigned nrails;
	unsigned budget_ms; /* 1 .. RD_PAIR_BUDGET_MAX_MS */
};
#define RD_PAIR_BUDGET_MAX_MS 3600000u
int rd_pair_parse_hello(const char *line, struct rd_pair_hello *h);
struct rd_pair_qp_line {
	char device[64];
	unsigned port, lid, qpn, psn, mtu; /* mtu: enum ibv_mtu, 1..5 */
	uint8_t gid[16];
	bool has_gid;
	int gid_index;
	uint64_t addr;
	uint32_t rkey;
	double line_gbps;
};
int rd_pair_parse_qp(const char *line, struct rd_pair_qp_line *q);

#endif
