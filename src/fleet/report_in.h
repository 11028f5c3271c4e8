/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The fleet's report reader: a stream of `rdma-doctor check --format json` reports (schema
 * rdma-doctor/report/v1, docs/report-json.md), parsed with yajl as it arrives, one report at a
 * time.  Only what the fleet summary needs is kept, in bounded sizes: never the document.
 *
 * An input (rd_fleet_input) is a file, a directory entry or standard input, holding either
 * concatenated JSON reports or pdsh/clush output (`host: line` per line: the lines of one host
 * are that host's reports).  The first byte that is not white space decides: `{` is JSON.
 *
 * Ownership: a report handed to the callback belongs to the reader and is valid only during the
 * call (the callback copies what it keeps); the reader owns its parsers and buffers. */
#ifndef RD_FLEET_REPORT_IN_H
#define RD_FLEET_REPORT_IN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bounds on one report: past them a report is refused with a one-line reason. */
#define RD_FLEET_MAX_REPORT (16u << 20) /* bytes of one report (real ones are far below 1 MiB) */
#define RD_FLEET_MAX_DEVICES 256
#define RD_FLEET_MAX_PORTS 64            /* per device */
#define RD_FLEET_MAX_NETDEVS 8           /* per port */
#define RD_FLEET_MAX_MODULES 1024
#define RD_FLEET_MAX_FINDINGS 4096
#define RD_FLEET_MAX_GPUS 64
#define RD_FLEET_MAX_STR 256             /* bytes of one kept string (longer ones are cut) */
#define RD_FLEET_MAX_HOSTS 262144        /* hosts of one pdsh/clush stream */
/* Reports in progress at once in one pdsh/clush stream (pdsh and clush have their fan-out, 32 or 64
 * by default, in flight): past either bound the one fed longest ago is given up with a reason. */
#define RD_FLEET_MAX_OPEN 1024
#define RD_FLEET_MAX_OPEN_TEXT "1024"
#define RD_FLEET_MAX_OPEN_BYTES (64u << 20)
#define RD_FLEET_MAX_OPEN_BYTES_TEXT "64 MiB"
/* An input with no report and no pdsh/clush line in this many bytes is given up. */
#define RD_FLEET_MAX_JUNK (1u << 20)

enum rd_fleet_status { RD_FS_NONE = 0, RD_FS_OK, RD_FS_SKIP, RD_FS_UNKNOWN, RD_FS_WARN, RD_FS_FAIL };
/* "OK" ... "FAIL"; RD_FS_NONE for anything else. */
enum rd_fleet_status rd_fleet_status_parse(const char *s);
const char *rd_fleet_status_name(enum rd_fleet_status s);

struct rd_fleet_port {
	unsigned port;
	char *state, *link_layer;
	double rate_gbps;
	bool has_rate;
	unsigned long long mtu[RD_FLEET_MAX_NETDEVS]; /* netdevs[].mtu (0: null) */
	size_t nmtu;
	char *trust;      /* qos.trust ("dscp", "pcp"), NULL when null or absent */
	bool has_pfc;     /* qos.pfc is an array */
	uint8_t pfc;      /* ... of these priorities (bit n: priority n) */
};

struct rd_fleet_dev {
	char *name, *model, *board_id, *fw_ver;
	struct rd_fleet_port *ports;
	size_t nports;
};

struct rd_fleet_module {
	char *name, *persistent_in;
	int loaded, builtin, persistent; /* -1 null or absent, 0, 1 */
};

struct rd_fleet_finding {
	char *check, *subject, *message;
	enum rd_fleet_status status;
	char *memlock; /* memlock.limit: the "Max locked memory" line of its /proc/<pid>/limits evidence */
};

/* gpudirect.gpus[]: a GPU, its nearest RDMA NIC and the path between */
struct rd_fleet_gpu {
	char *name, *pci_id, *nic, *type;
	int nacs;              /* acs_redirect's length; -1 when absent (ACS not read) */
	unsigned long long acs_unknown;
};

struct rd_fleet_report {
	char *schema, *host, *time, *version, *kernel, *error;
	char *boot_id; /* NULL when null or absent (reports before it was added) */
	bool host_null;
	enum rd_fleet_status status; /* summary.status */
	enum rd_fleet_status worst;  /* the worst status of findings[] (all of them, kept or not; one
				      * without a known status is UNKNOWN); RD_FS_NONE for none */
	char *stack_installed, *stack_version;
	struct rd_fleet_dev *devs;
	size_t ndevs;
	struct rd_fleet_module *mods;
	size_t nmods;
	struct rd_fleet_finding *finds;
	size_t nfinds;
	bool has_gdr;             /* a "gpudirect" object: the host has GPUs */
	char *gdr_iommu;          /* gpudirect.iommu, NULL when null */
	struct rd_fleet_gpu *gpus;
	size_t ngpus;
	const char *too_many; /* "devices", "ports", ... when a bound was passed (the rest ignored) */
};

/* Checks that a parsed document is a report this reader understands: schema
 * rdma-doctor/report/v1, a host that is a host name, an ISO 8601 time.  Returns true, or false
 * with a one-line reason in why. */
bool rd_fleet_report_valid(const struct rd_fleet_report *r, char *why, size_t whylen);
/* The time as seconds since the epoch, or -1. */
long long rd_fleet_parse_time(const char *iso);
/* Letters, digits, '-', '.', '_' (1 to 255 bytes). */
bool rd_fleet_hostname_ok(const char *s);

struct rd_fleet_input_cb {
	/* A complete JSON object.  label: the node it came from (the pdsh/clush host, the clush -b
	 * block's one node, the file's node), or NULL when the input does not tell. */
	void (*report)(void *arg, const char *origin, const char *label, const struct rd_fleet_report *r);
	/* What was wrong with a part of the input: one line (no newline). */
	void (*problem)(void *arg, const char *origin, const char *label, const char *msg);
};

struct rd_fleet_input;
/* origin names the input in messages (a path, or "-").  Its reports are told with label NULL, and
 * pdsh/clush lines with their host. */
struct rd_fleet_input *rd_fleet_input_new(const char *origin, const struct rd_fleet_input_cb *cb, void *arg);
/* The node the input is the output of (a file's name): its JSON reports are told with that label.
 * lines_ok false: pdsh/clush output in it is refused (one node's file cannot speak for others). */
void rd_fleet_input_node(struct rd_fleet_input *in, const char *node, bool lines_ok);
/* Feeds the next bytes.  Returns 0, or -1 once the input is given up (a problem was told; the
 * rest of it need not be read). */
int rd_fleet_input_feed(struct rd_fleet_input *in, const char *data, size_t len);
/* The end of the input: a report cut short is a problem; nothing at all is one too. */
void rd_fleet_input_end(struct rd_fleet_input *in);
void rd_fleet_input_free(struct rd_fleet_input *in);
/* How many reports (complete JSON objects) the input held so far. */
size_t rd_fleet_input_reports(const struct rd_fleet_input *in);

#endif
