/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Link health facts: what link.counters, link.flaps and pcie.link judge, and what each RDMA device
 * is (a compute port, an SR-IOV VF, the management NIC, a RoCE LAG, a multi-plane ConnectX-8).
 *
 * rd_link_load (called by rd_system_load) reads the facts every command sees: boot_id and uptime,
 * the default route, each port's netdevs and their carrier_changes, each device's kind and PCIe
 * path.  The counters and the state file are not read there: the command layer asks for them
 * (rd_link_counters_load, and run/linkstate.c for the samples), since reading counters
 * costs firmware commands and only check / slurm / npd keep samples.
 *
 * Ownership: an rd_link owns everything inside it; rd_link_free releases it. */
#ifndef RD_LINK_H
#define RD_LINK_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/host.h"
#include "model/pcidevctl.h"
#include "model/state.h"

struct rd_policy;

/* One PCIe link: its downstream function's current_link_* and max_link_*. */
struct rd_pcie_hop {
	char *addr;                 /* "0000:1b:00.0" */
	struct rd_attr cur_speed, cur_width, max_speed, max_width;
	double cur_gts, max_gts;    /* GT/s; 0 when unknown */
	unsigned cur_w, max_w;      /* lanes; 0 when unknown */
};

/* What a device is, for the port rules. */
struct rd_link_dev {
	char *name;                 /* the RDMA device */
	bool vf;                    /* device/physfn exists: an SR-IOV virtual function */
	bool bond;                  /* mlx5_bond_N: a RoCE LAG, one port over a bond */
	bool multiplane;            /* ConnectX-8 (PCI 0x1023) with more than 2 ports */
	struct rd_pcie_hop *path;   /* [0] the function, then each bridge up to the root port */
	size_t npath;
	int path_err;               /* the PCI device could not be resolved */
	/* pcie.mrrs (with RD_LOAD_PCICFG; a PF's, not a VF's nor a bond's): its Device Control
	 * register, from its config space, else from a captured lspci -vvv */
	struct rd_devctl devctl;
	char *devctl_path;          /* the config file read ("/sys/bus/pci/devices/X/config") */
};

/* A netdev of a port and its carrier_changes. */
struct rd_link_netdev {
	char *dev;                  /* RDMA device */
	unsigned port;
	char *name;                 /* ib0, enp193s0f0np0, bond0 */
	struct rd_attr carrier_changes;
	uint64_t changes;           /* valid when carrier_changes reads */
};

/* A device whose counter reads failed in this run: no more of its counters are read. */
struct rd_counter_refusal {
	char *dev;
	char *path;
	int err;
};

/* The samples kept between runs (filled by the run layer, run/linkstate.c). */
struct rd_link_sample {
	bool kept;                  /* this run compares with samples (check, slurm, npd) */
	bool no_dir;                /* it would, but has no state directory (--root without --state-dir) */
	bool reader;                /* it reads the samples and writes none (--dry-run, --no-counters, or a
				     * user who cannot write the default directory) */
	const char *reader_why;     /* static: why it writes none, when reader */
	char *dir;                  /* the state directory (as given or the default) */
	char *file;                 /* dir/<host>.link-state */
	long long window;           /* the policy's [counters] window, seconds */
	struct rd_state hist;       /* the samples read (empty when none) */
	struct rd_baseline base[2]; /* what each kind compares with (enum rd_sample_kind), into hist */
	char *prev_problem;         /* why the state file cannot be used (a corrupt file ...), or NULL */
	long long now;              /* time of this sample */
	char *write_problem;        /* the new sample could not be written, or NULL */
	int write_err;              /* its errno */
	bool written;
};

struct rd_link {
	struct rd_attr boot_id;     /* proc/sys/kernel/random/boot_id of the root read */
	struct rd_attr uptime;      /* proc/uptime */
	double uptime_s;            /* -1 when unknown */
	struct rd_attr route;       /* proc/net/route */
	char *mgmt_netdev;          /* the default route's netdev, or NULL */
	struct rd_link_dev *devs;   /* parallel to host->devices */
	size_t ndevs;
	struct rd_link_netdev *netdevs;
	size_t nnetdevs;
	/* counters (rd_link_counters_load) */
	bool counters_read;         /* the counters were asked for in this run */
	bool counters_off;          /* check --no-counters */
	struct rd_strv excluded;    /* devices the policy excludes from counter reads */
	struct rd_counter_refusal *refused;
	size_t nrefused;
	struct rd_link_sample sample;
	/* pcie.mrrs (with RD_LOAD_PCICFG): the lines of /etc/udev/rules.d/\*.rules that run setpci
	 * (what sets a PCIe register again at every boot), "FILE:LINE: text", at most 16 */
	struct rd_strv setpci_rules;
	const char *setpci;         /* where the root has setpci ("/usr/bin/setpci"; static), or NULL */
	unsigned unloaded;          /* the parts (RD_LOAD_*) the load did not read (model/host.h) */
};

/* flags: rd_host_load's RD_LOAD_* (the PCIe paths only with RD_LOAD_PCI). */
void rd_link_load(struct rd_source *src, const struct rd_host *h, unsigned flags, struct rd_link *lk);
/* Reads counters/ and hw_counters/ of every port of h (not of the devices the policy's
 * [counters] exclude names, nor of a device after one of its reads failed with an error other
 * than ENOENT or N/A). */
void rd_link_counters_load(struct rd_source *src, struct rd_host *h, const struct rd_policy *p, struct rd_link *lk);
void rd_link_free(struct rd_link *lk);

const struct rd_link_dev *rd_link_dev(const struct rd_link *lk, const char *name);
/* The refusal that stopped dev's counter reads, or NULL. */
const struct rd_counter_refusal *rd_link_refusal(const struct rd_link *lk, const char *dev);

/* What a port is for the port rules (rd_port_role and rd_port_judged abort when a part they read,
 * RD_LOAD_ROLE, was not loaded: rd_need, model/host.h). */
enum rd_port_role {
	RD_ROLE_COMPUTE,  /* judged */
	RD_ROLE_VF,       /* an SR-IOV VF: listed, not judged (unassigned VFs stay down by design) */
	RD_ROLE_MGMT,     /* carries the default route: the management NIC */
	RD_ROLE_NOT_DATA, /* a multi-plane port the policy's data_ports does not list */
	RD_ROLE_PLANE,    /* a port of a multi-plane device the policy says nothing of, not Active:
			   * which planes carry data is the policy's to say (ports.state asks for it) */
};
enum rd_port_role rd_port_role(const struct rd_link *lk, const struct rd_policy *p, const struct rd_device *d,
			       const struct rd_port *port);
/* The port is judged by the port rules: the policy does not ignore it and it is a compute port. */
bool rd_port_judged(const struct rd_link *lk, const struct rd_policy *p, const struct rd_device *d,
		    const struct rd_port *port);
const char *rd_port_role_words(enum rd_port_role r); /* "an SR-IOV virtual function", ... */

/* "32.0 GT/s PCIe" -> 32.0; 0 when not a speed ("Unknown", "Unknown speed"). */
double rd_parse_pcie_speed(const char *s);

#endif
