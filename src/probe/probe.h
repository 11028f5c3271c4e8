/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The verbs loopback probe: on the running host, for each Active port of each RDMA device, an RC
 * queue pair connected to itself does one RDMA WRITE inside a registered memory region and the
 * bytes are compared.  libibverbs is loaded at run time (dlopen "libibverbs.so.1"), so the program
 * never links it and still runs where it is missing or broken: that is then the probe's result.
 *
 * Ownership: rd_probe_run fills an rd_probe_result that owns every string and array inside it;
 * rd_probe_result_free releases all of it.  The probe borrows the source (the live host: sysfs
 * GID types, /sys/class/infiniband, /proc/self/status) and keeps nothing.  Every verbs object it
 * creates is destroyed, in reverse order, before rd_probe_run returns.  Nothing here prints.
 *
 * A libibverbs (or provider) that crashes, exits or hangs would take the caller with it, so
 * commands use rd_probe_run_contained: the probe runs in a child process that streams what it
 * finished to the parent (probe/wire.h), under a watchdog; the parent's result always says what
 * happened ("killed by SIGSEGV", "exited with status 0", "timed out after 5 s"), with where. */
#ifndef RD_PROBE_H
#define RD_PROBE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "source/source.h"
#include "util/util.h"

#define RD_PROBE_DEFAULT_SIZE (32u * 1024 * 1024) /* above the 8 MiB and 64 KiB memlock defaults */
#define RD_PROBE_MIN_SIZE 4096u
#define RD_PROBE_MAX_SIZE (64ull * 1024 * 1024 * 1024)
#define RD_PROBE_MAX_WRITE (1024u * 1024)          /* bytes written: min(size / 2, 1 MiB) */
#define RD_PROBE_TIMEOUT_MS 5000                    /* wait for the completion */

struct rd_probe_result;
struct rd_probe_opts {
	const char *device; /* only this device (NULL: all) */
	unsigned port;      /* only this port (0: all) */
	uint64_t size;      /* bytes of the memory region; 0 means RD_PROBE_DEFAULT_SIZE */
	/* Called (when set) before each call into libibverbs, with where the run is: device (NULL
	 * for the host steps), port (0 outside a port), the step about to run or running, and the
	 * call (static text: "ibv_get_device_list", "dlopen(\"libibverbs.so.1\")").  When it is
	 * called, every host step in r and every port but the last are finished; the last port is
	 * finished too unless port > 0 (then its steps so far are). */
	void (*progress)(void *arg, const struct rd_probe_result *r, const char *device, unsigned port,
			 const char *step, const char *call);
	void *progress_arg;
};

/* One step: "load", "devices" (host), then per port "open", "query_port", "gid", "alloc_pd",
 * "reg_mr", "create_cq", "create_qp", "init", "rtr", "rts", "write", "verify", and "teardown"
 * when a destroy failed; "unload" (host) when the probe process died closing devices or
 * unloading the library.  Names are static: rd_probe_step_name gives the static copy. */
struct rd_probe_step {
	const char *name;    /* static */
	bool ok;
	int err;             /* errno of the failure, or 0 */
	char *error;         /* one line: what failed (NULL when ok) */
	char *detail;        /* what was done or seen (may be NULL) */
	uint64_t usec;       /* elapsed, CLOCK_MONOTONIC (write: post to completion) */
	struct rd_strv fix;  /* commands or advice, one per line */
};

struct rd_probe_port {
	char *device;
	unsigned port;        /* 0 when the device itself failed (open) */
	bool active;          /* ibv_query_port said ACTIVE: the port is probed */
	bool pass;            /* probed and verified */
	char *state;          /* "ACTIVE", "DOWN" ... (NULL before query_port) */
	char *link_layer;     /* "InfiniBand", "Ethernet" (NULL before query_port) */
	unsigned active_mtu;  /* bytes, 0 unknown */
	unsigned lid;
	int gid_index;        /* -1: none (InfiniBand uses the LID) */
	char *gid;            /* text, "::ffff:10.0.2.15"; NULL when none */
	char *gid_type;       /* "RoCE v2", "RoCE v1" ...; NULL when none */
	uint64_t bytes;       /* bytes written (0 before the write) */
	bool verified;
	struct rd_probe_step *steps;
	size_t nsteps;
};

struct rd_probe_result {
	bool pass;
	char *error;          /* NULL when pass: the first failure, one line */
	uint64_t size;        /* memory region size used */
	char *library;        /* path of the loaded libibverbs, or NULL */
	struct rd_probe_step *steps; /* host steps: load, devices */
	size_t nsteps;
	struct rd_probe_port *ports;
	size_t nports;
	struct rd_strv devices;       /* the devices to probe, as listed by libibverbs (not rendered) */
};

/* Runs the probe on the live host.  Always fills result (free it with rd_probe_result_free);
 * returns 0 when it passed, -EIO when a step failed (result->error says which), -EINVAL for bad
 * options (size out of range). */
int rd_probe_run(struct rd_source *src, const struct rd_probe_opts *opts, struct rd_probe_result *result);
void rd_probe_result_free(struct rd_probe_result *result);

/* The failed step of a port (or of the host steps), or NULL. */
const struct rd_probe_step *rd_probe_failed_step(const struct rd_probe_step *steps, size_t n);
/* The static name of a step ("load", "gid" ...), or NULL when name is none of them. */
const char *rd_probe_step_name(const char *name);

/* rd_probe_run in a child process (fork; libibverbs is loaded only there, and the child reads
 * the live host through its own source), under a watchdog of timeout_ms (0: none).  Always fills
 * result, like rd_probe_run: when the child crashed, exited without reporting, sent something
 * malformed or ran out of time (then it is killed with SIGKILL), the result keeps what the child
 * finished and a failed step where it stopped, whose error names the signal, the exit status or
 * the timeout.  The child is always reaped.  Flushes every stdio stream first (the child must not
 * write them again).  Returns what rd_probe_run returns, or -EIO for a failure of the child. */
int rd_probe_run_contained(const struct rd_probe_opts *opts, int timeout_ms, struct rd_probe_result *result);


#endif
