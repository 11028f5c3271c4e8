/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A PCI Express function's Device Control register (PCI_EXP_DEVCTL, 16 bits at offset 8 of the
 * PCI Express capability, id 0x10, include/uapi/linux/pci_regs.h): its Max Read Request Size
 * (bits 14:12) and Max Payload Size (bits 7:5), each 128 << N bytes, and the Max Payload Size the
 * function supports (PCI_EXP_DEVCAP bits 2:0).  Read from the bytes of its config space
 * (/sys/bus/pci/devices/X/config: the capability list from the pointer at 0x34, within the first
 * 256 bytes) or from the "DevCtl:" lines of a captured `lspci -vvv` (pciutils ls-caps.c
 * cap_express_dev: "MaxPayload N bytes, MaxReadReq N bytes").
 *
 * Ownership: an rd_devctl is a plain value (its strings are arrays or static); the parsers borrow
 * their input and keep nothing. */
#ifndef RD_PCIDEVCTL_H
#define RD_PCIDEVCTL_H
#include <stddef.h>

enum { RD_PCI_CAP_EXP = 0x10 };

enum rd_devctl_state {
	RD_DEVCTL_UNREAD,  /* not looked at */
	RD_DEVCTL_ABSENT,  /* not captured: a root without the function's config space or lspci */
	RD_DEVCTL_READ,    /* mrrs and mps hold the register's values */
	RD_DEVCTL_UNKNOWN, /* why says why it cannot be told */
};

struct rd_devctl {
	enum rd_devctl_state state;
	unsigned mrrs, mps;   /* bytes, with RD_DEVCTL_READ */
	unsigned mps_cap;     /* bytes the function supports (config space only; 0 from lspci) */
	unsigned ctl;         /* the register (config space only) */
	unsigned pos;         /* the capability's offset, 0 when not known */
	const char *from;     /* "config space" or "lspci -vvv" (static), NULL when unread */
	char why[200];
};

/* The register from the first len bytes of a function's config space.  Fewer bytes than the
 * capability needs (an unprivileged read stops at 64): UNKNOWN saying so. */
void rd_devctl_from_config(const unsigned char *b, size_t len, struct rd_devctl *d);
/* The same from the text of `lspci -vvv` (len bytes, not NUL-terminated) for the function addr
 * ("0000:1b:00.0"; a section without a domain is of domain 0000). */
void rd_devctl_from_lspci(const char *text, size_t len, const char *addr, struct rd_devctl *d);
/* The Device Control field value of a size in bytes (128 .. 4096: 0 .. 5), or -1. */
int rd_devctl_code(unsigned bytes);
#endif
