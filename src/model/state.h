/* The link state file: the previous sample of the port counters and carrier changes, kept between
 * runs of check / slurm / npd in the state directory (--state-dir, /var/lib/rdma-doctor by
 * default), one small text file per host, "<host>.link-state":
 *
 *   rdma-doctor-link-state 1
 *   host gpu-a01
 *   boot_id 0d5c1c7e-...           (/proc/sys/kernel/random/boot_id of the root read; "-" unknown)
 *   time 1764460800                (seconds since the epoch)
 *   ntime 1764457200               (optional: when the n lines were sampled, if not at "time":
 *                                   a run of link.counters alone keeps link.flaps' lines as they were)
 *   c mlx5_0 1 link_downed 0       (c: ports/N/counters, h: ports/N/hw_counters)
 *   n ibp27s0 carrier_changes 3    (a port netdev)
 *
 * The parser is a pure function (text to struct, fuzzed); the file is input like any other: a
 * file that does not parse gives a message and a new baseline, never a crash.
 *
 * Ownership: an rd_state owns its entries (rd_state_free); rd_state_format returns a string the
 * caller frees. */
#ifndef RD_STATE_H
#define RD_STATE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RD_STATE_MAX_BYTES (1024 * 1024) /* a larger file is refused (a new baseline) */
#define RD_STATE_MAX_ENTRIES 65536
#define RD_STATE_NAME_MAX 64             /* device, netdev and counter names */

enum rd_state_kind { RD_STATE_COUNTER = 'c', RD_STATE_HW = 'h', RD_STATE_NETDEV = 'n' };

struct rd_state_entry {
	char kind;                  /* enum rd_state_kind */
	char dev[RD_STATE_NAME_MAX];  /* rdma device, or netdev for 'n' */
	unsigned port;              /* 0 for 'n' */
	char name[RD_STATE_NAME_MAX]; /* counter */
	uint64_t value;
};

struct rd_state {
	char host[RD_STATE_NAME_MAX * 4];
	char boot_id[64];           /* "" when unknown */
	long long time;             /* of the c and h lines */
	long long ntime;            /* of the n lines: time unless an ntime line says otherwise */
	struct rd_state_entry *e;
	size_t n, cap;
};

/* Parses len bytes of text.  Returns 0, or -1 with a one-line reason ("line 3: ...") in err
 * (st is then empty). */
int rd_state_parse(const char *text, size_t len, struct rd_state *st, char *err, size_t errlen);
/* The file's text for st. */
char *rd_state_format(const struct rd_state *st);
void rd_state_add(struct rd_state *st, char kind, const char *dev, unsigned port, const char *name, uint64_t value);
/* The entry, or NULL. */
const struct rd_state_entry *rd_state_find(const struct rd_state *st, char kind, const char *dev, unsigned port,
					   const char *name);
void rd_state_free(struct rd_state *st);
/* True when s can be stored: 1..RD_STATE_NAME_MAX-1 bytes of [A-Za-z0-9_.:@+-]. */
bool rd_state_name_ok(const char *s);
/* The file name for host ("<host>.link-state", the host's unsafe bytes as '_'), into buf. */
const char *rd_state_file_name(const char *host, char *buf, size_t len);

#endif
