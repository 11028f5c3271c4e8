/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* PCIe Access Control Services (ACS) of one function: its ACS control register (PCI_ACS_CTRL,
 * 16 bits at offset 6 of extended capability 0x000D, include/uapi/linux/pci_regs.h), read from
 * the bytes of its config space (/sys/bus/pci/devices/X/config) or from the "ACSCtl:" line of a
 * captured `lspci -vvv` (pciutils ls-ecaps.c cap_acs), and whether this host is a virtual
 * machine (where ACS is the hypervisor's isolation, not a setting to change).
 *
 * Ownership: an rd_acs is a plain value (its strings are arrays or static); the parsers borrow
 * their input and keep nothing. */
#ifndef RD_PCIACS_H
#define RD_PCIACS_H
#include <stdbool.h>
#include <stddef.h>

#include "model/host.h"
#include "source/source.h"

/* The control bits, PCI_ACS_SV .. PCI_ACS_DT. */
enum {
	RD_ACS_SV = 0x01, /* Source Validation */
	RD_ACS_TB = 0x02, /* Translation Blocking */
	RD_ACS_RR = 0x04, /* P2P Request Redirect */
	RD_ACS_CR = 0x08, /* P2P Completion Redirect */
	RD_ACS_UF = 0x10, /* Upstream Forwarding */
	RD_ACS_EC = 0x20, /* P2P Egress Control */
	RD_ACS_DT = 0x40, /* Direct Translated P2P */
};
/* The bits that send peer-to-peer traffic up to the root complex. */
#define RD_ACS_REDIRECT (RD_ACS_RR | RD_ACS_CR)
#define RD_ACS_ECAP_ID 0x000d

enum rd_acs_state {
	RD_ACS_UNREAD,	/* not looked at */
	RD_ACS_ABSENT,	/* the function has no ACS capability: nothing redirects */
	RD_ACS_READ,	/* ctl holds the control register */
	RD_ACS_UNKNOWN, /* why says why it cannot be told */
};

struct rd_acs {
	enum rd_acs_state state;
	unsigned ctl; /* RD_ACS_* bits, with RD_ACS_READ */
	unsigned pos; /* the capability's offset in config space, 0 when not known */
	const char *from; /* "config space" or "lspci -vvv" (static), NULL when unread */
	char why[320];
};

/* The ACS control register from the first len bytes of a function's config space: the extended
 * capability list from offset 0x100.  Fewer than 0x104 bytes (an unprivileged read stops at 64,
 * or 256): UNKNOWN, since the extended capabilities are not in them. */
void rd_acs_from_config(const unsigned char *b, size_t len, struct rd_acs *a);
/* The same from the text of `lspci -vvv` (len bytes, not NUL-terminated) for the function addr
 * ("0000:17:01.0"; a section without a domain, "17:01.0 ...", is of domain 0000): its ACSCtl
 * line, "Capabilities: <access denied>" (UNKNOWN: lspci was not run as root), or a capability
 * list without ACS (ABSENT).  Not in the text: UNKNOWN. */
void rd_acs_from_lspci(const char *text, size_t len, const char *addr, struct rd_acs *a);
/* True when line (n bytes, at column 0) of an `lspci -vvv` opens the section of addr
 * ("[DDDD:]BB:DD.F ..."; without a domain: domain 0000). */
bool rd_lspci_section_of(const char *line, size_t n, const char *addr);
/* The bits as lspci prints them, "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+
 * EgressCtrl- DirectTrans-", into buf. */
const char *rd_acs_ctl_text(unsigned ctl, char *buf, size_t len);

/* Whether the host is a virtual machine: the "hypervisor" flag of /proc/cpuinfo (the first
 * processor's flags), or a hypervisor's /sys/class/dmi/id/sys_vendor.  Fills what (the source
 * and value, "sys_vendor QEMU", "" on bare metal). */
struct rd_guest {
	bool guest;
	char what[96];
	struct rd_attr sys_vendor; /* evidence */
	bool cpuinfo_read, cpuinfo_flag;
};
void rd_guest_load(struct rd_source *src, struct rd_guest *g);
void rd_guest_free(struct rd_guest *g);
/* The same test on the texts (sys_vendor, NULL when unread; cpuinfo's first bytes). */
bool rd_guest_vendor(const char *sys_vendor);
bool rd_cpuinfo_hypervisor(const char *cpuinfo, size_t len);
#endif
