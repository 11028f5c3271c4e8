/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The link state file: a short history of samples of the port counters and carrier changes, kept
 * between runs of check / slurm / npd in the state directory (--state-dir, /var/lib/rdma-doctor by
 * default), one small text file per host, "<host>.link-state" (read and written only by
 * run/statefile.c, which locks it):
 *
 *   rdma-doctor-link-state 2
 *   host gpu-a01
 *   sample counters 1764457200 0d5c1c7e-...   (kind, seconds since the epoch, boot_id or "-")
 *   c mlx5_0 1 link_downed 0                 (c: ports/N/counters, h: ports/N/hw_counters,
 *   e mlx5_2 1 rx_prio3_pause 0               e: a congestion counter of ethtool -S of the port's netdev)
 *   sample carrier 1764457200 0d5c1c7e-...
 *   n ibp27s0 carrier_changes 3              (a port netdev)
 *   sample counters 1764460800 0d5c1c7e-...
 *   ...
 *
 * Samples are oldest first; a "counters" sample holds c, h and e lines, a "carrier" sample n lines.
 * A run of link.counters alone adds a counters sample, of link.flaps alone a carrier sample, so
 * neither moves the other's history.  Version 1 files (one sample: "boot_id", "time", an
 * optional "ntime" for the n lines) are read as one sample of each kind they hold.
 *
 * What a run compares with (rd_state_baseline): of the samples of its kind and boot, dated
 * between now - 2*WINDOW and now, the newest one at or before now - WINDOW, else the oldest one.
 * So a rise stays visible to every consumer (timer, Slurm, NPD, a manual check) for WINDOW after
 * it happened, whichever of them ran in between; a sample older than 2*WINDOW is never compared
 * with (a rise since then cannot be placed in the window).  rd_state_record keeps the history
 * bounded: the one baseline before the window and samples at least WINDOW/14 apart in it, at
 * most RD_STATE_MAX_SAMPLES of each kind.
 *
 * The parser is a pure function (text to struct, fuzzed); the file is input like any other: a
 * file that does not parse gives a message and a new baseline, never a crash.
 *
 * Ownership: an rd_state owns its samples and their entries (rd_state_free); rd_state_format
 * returns a string the caller frees; an rd_state_baseline points into the rd_state it was
 * computed from. */
#ifndef RD_STATE_H
#define RD_STATE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RD_STATE_MAX_BYTES (1024 * 1024) /* a larger file is refused (a new baseline) */
#define RD_STATE_MAX_ENTRIES 65536       /* in one sample */
#define RD_STATE_MAX_SAMPLES 16          /* of each kind */
#define RD_STATE_NAME_MAX 64             /* device, netdev and counter names */
#define RD_STATE_WINDOW_DEFAULT 3600     /* seconds: the policy's [counters] window */

enum rd_state_kind { RD_STATE_COUNTER = 'c', RD_STATE_HW = 'h', RD_STATE_ETHTOOL = 'e', RD_STATE_NETDEV = 'n' };
enum rd_sample_kind { RD_SAMPLE_COUNTERS, RD_SAMPLE_CARRIER };

struct rd_state_entry {
	char kind;                  /* enum rd_state_kind */
	char dev[RD_STATE_NAME_MAX];  /* rdma device, or netdev for 'n' */
	unsigned port;              /* 0 for 'n' */
	char name[RD_STATE_NAME_MAX]; /* counter */
	uint64_t value;
};

struct rd_state_sample {
	int kind;                   /* enum rd_sample_kind */
	long long time;             /* seconds since the epoch */
	char boot_id[64];           /* "" when unknown */
	struct rd_state_entry *e;
	size_t n, cap;
};

struct rd_state {
	char host[RD_STATE_NAME_MAX * 4];
	int version;                /* of the file read (1 or 2); 0 for a state made in memory */
	struct rd_state_sample *s;  /* oldest first */
	size_t ns, cap;
};

/* Parses len bytes of text.  Returns 0, or -1 with a one-line reason ("line 3: ...") in err
 * (st is then empty). */
int rd_state_parse(const char *text, size_t len, struct rd_state *st, char *err, size_t errlen);
/* The file's text for st (version 2). */
char *rd_state_format(const struct rd_state *st);
/* A new empty sample at the end of st (its boot_id cut to fit, "" when not storable). */
struct rd_state_sample *rd_state_add_sample(struct rd_state *st, int kind, long long time, const char *boot_id);
/* An entry of s; one that cannot be stored (a name that is not rd_state_name_ok) is dropped. */
void rd_state_add(struct rd_state_sample *s, char kind, const char *dev, unsigned port, const char *name,
		  uint64_t value);
/* The entry, or NULL. */
const struct rd_state_entry *rd_state_find(const struct rd_state_sample *s, char kind, const char *dev,
					   unsigned port, const char *name);
void rd_state_free(struct rd_state *st);
/* True when s can be stored: 1..RD_STATE_NAME_MAX-1 bytes of [A-Za-z0-9_.:@+-]. */
bool rd_state_name_ok(const char *s);
/* host made safe as one file name, into buf: every byte but [A-Za-z0-9_-] and a '.' after the
 * first byte becomes '_' (no '/', no "." or "..", no hidden name), cut at len - 1 bytes; an empty
 * or absent host is "localhost". */
const char *rd_state_safe_name(const char *host, char *buf, size_t len);
/* The file name for host ("<host>.link-state", the host's unsafe bytes as '_'), into buf. */
const char *rd_state_file_name(const char *host, char *buf, size_t len);

/* What a run at now on boot compares with, for samples of kind. */
enum rd_baseline_why {
	RD_BASE_FOUND,   /* s is the sample to compare with */
	RD_BASE_NONE,    /* no sample of this kind */
	RD_BASE_BOOT,    /* only samples of another boot (newest: the latest of them) */
	RD_BASE_FUTURE,  /* only samples dated after now (newest: the earliest of them) */
	RD_BASE_OLD,     /* only samples older than 2 * window (newest: the latest of them) */
};
struct rd_baseline {
	enum rd_baseline_why why;
	const struct rd_state_sample *s;      /* RD_BASE_FOUND */
	const struct rd_state_sample *newest; /* what the reason names (RD_BASE_BOOT, _FUTURE, _OLD) */
};
void rd_state_baseline(const struct rd_state *st, int kind, const char *boot_id, long long now, long long window,
		       struct rd_baseline *b);
/* Adds cur (moved in: cur is left empty) to st and keeps the history bounded: drops st's samples
 * of cur's kind that are of another boot, dated more than window after now, older than 2 * window
 * or than the newest one at or before now - window; in the window keeps samples at least
 * window/14 apart (the newest always), at most RD_STATE_MAX_SAMPLES of the kind; and drops
 * the oldest samples in the window until the file fits RD_STATE_MAX_BYTES. */
void rd_state_record(struct rd_state *st, struct rd_state_sample *cur, long long now, long long window);
void rd_state_sample_free(struct rd_state_sample *s);

#endif
