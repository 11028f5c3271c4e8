/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A PCI Express function's Device Control register (model/pcidevctl.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/pciacs.h"
#include "model/pcidevctl.h"

static void unknown(struct rd_devctl *d, const char *from, const char *why)
{
	d->state = RD_DEVCTL_UNKNOWN;
	d->from = from;
	snprintf(d->why, sizeof d->why, "%s", why);
}

int rd_devctl_code(unsigned bytes)
{
	for (int c = 0; c <= 5; c++)
		if (bytes == 128u << c)
			return c;
	return -1;
}

void rd_devctl_from_config(const unsigned char *b, size_t len, struct rd_devctl *d)
{
	memset(d, 0, sizeof *d);
	d->from = "config space";
	char why[200];
	if (len < 0x40) {
		snprintf(why, sizeof why, "its config space is %zu bytes, less than the 64 of its header", len);
		unknown(d, d->from, why);
		return;
	}
	if (b[0] == 0xff && b[1] == 0xff) {
		unknown(d, d->from, "its config space reads as all ones (the function does not answer)");
		return;
	}
	if (!(b[6] & 0x10)) { /* PCI_STATUS_CAP_LIST */
		unknown(d, d->from, "it has no capability list, so no PCI Express capability");
		return;
	}
	unsigned pos = b[0x34] & 0xfc;
	for (int hops = 0; pos && hops < 48; hops++) {
		if (pos < 0x40 || pos > 0xfc) {
			unknown(d, d->from, "its capability list points outside the device-specific config space");
			return;
		}
		if (pos + 2 > len) {
			snprintf(why, sizeof why,
				 "only the first %zu bytes of its config space can be read (as root: 4096), and its "
				 "capabilities lie beyond them",
				 len);
			unknown(d, d->from, why);
			return;
		}
		if (b[pos] == RD_PCI_CAP_EXP) {
			if (pos + 10 > len) {
				snprintf(why, sizeof why,
					 "only the first %zu bytes of its config space can be read (as root: 4096), and its "
					 "PCI Express capability at 0x%x lies beyond them",
					 len, pos);
				unknown(d, d->from, why);
				return;
			}
			unsigned cap = b[pos + 4] | (unsigned)b[pos + 5] << 8;
			unsigned ctl = b[pos + 8] | (unsigned)b[pos + 9] << 8;
			unsigned rr = (ctl >> 12) & 7, mp = (ctl >> 5) & 7, mc = cap & 7;
			d->pos = pos;
			d->ctl = ctl;
			if (rr > 5 || mp > 5) {
				snprintf(why, sizeof why, "its Device Control register 0x%04x holds a reserved size", ctl);
				unknown(d, d->from, why);
				return;
			}
			d->state = RD_DEVCTL_READ;
			d->mrrs = 128u << rr;
			d->mps = 128u << mp;
			d->mps_cap = mc <= 5 ? 128u << mc : 0;
			return;
		}
		pos = b[pos + 1] & 0xfc;
	}
	unknown(d, d->from, "it has no PCI Express capability");
}

static bool starts(const char *s, const char *end, const char *word)
{
	size_t n = strlen(word);
	return (size_t)(end - s) >= n && memcmp(s, word, n) == 0;
}

/* "N bytes" after word in [s, end): N, or 0. */
static unsigned bytes_after(const char *s, const char *end, const char *word)
{
	size_t wl = strlen(word);
	for (const char *p = s; p + wl < end; p++)
		if (memcmp(p, word, wl) == 0) {
			unsigned v = 0;
			const char *q = p + wl;
			while (q < end && *q == ' ')
				q++;
			int digits = 0;
			while (q < end && *q >= '0' && *q <= '9' && digits < 6)
				v = v * 10 + (unsigned)(*q++ - '0'), digits++;
			return digits && q + 6 <= end && memcmp(q, " bytes", 6) == 0 ? v : 0;
		}
	return 0;
}

void rd_devctl_from_lspci(const char *text, size_t len, const char *addr, struct rd_devctl *d)
{
	memset(d, 0, sizeof *d);
	d->from = "lspci -vvv";
	const char *p = text, *end = text + len;
	bool in = false, found = false, ctl = false, express = false;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		size_t n = (size_t)(le - p);
		if (n && p[0] != '\t' && p[0] != ' ') {
			if (in)
				break; /* the next function's section */
			in = found = rd_lspci_section_of(p, n, addr);
		} else if (in) {
			const char *s = p;
			while (s < le && (*s == '\t' || *s == ' '))
				s++;
			if (starts(s, le, "Capabilities: <access denied>")) {
				unknown(d, d->from, "lspci -vvv could not read its capabilities (it was not run as root)");
				return;
			}
			if (starts(s, le, "Capabilities: ["))
				express |= memmem(s, (size_t)(le - s), "] Express ", 10) != NULL;
			if (starts(s, le, "DevCtl:"))
				ctl = true;
			else if (ctl && (starts(s, le, "DevSta:") || starts(s, le, "Capabilities:")))
				ctl = false;
			if (ctl) {
				unsigned rr = bytes_after(s, le, "MaxReadReq"), mp = bytes_after(s, le, "MaxPayload");
				if (rr || mp) {
					if (rd_devctl_code(rr) < 0 || rd_devctl_code(mp) < 0) {
						unknown(d, d->from, "its DevCtl sizes are not lspci's");
						return;
					}
					d->state = RD_DEVCTL_READ;
					d->mrrs = rr;
					d->mps = mp;
					return;
				}
			}
		}
		p = nl ? nl + 1 : end;
	}
	if (!found)
		unknown(d, d->from, "it is not in the captured lspci -vvv");
	else if (express)
		unknown(d, d->from, "its PCI Express capability has no DevCtl MaxReadReq line");
	else
		unknown(d, d->from, "the captured lspci -vvv lists no PCI Express capability of it");
}
