/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* PCIe ACS from config space or `lspci -vvv`, and the virtual-machine test: see pciacs.h. */
#include "model/pciacs.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static void set_unknown(struct rd_acs *a, const char *from, const char *why)
{
	a->state = RD_ACS_UNKNOWN;
	a->from = from;
	snprintf(a->why, sizeof a->why, "%s", why);
}

static uint32_t le32(const unsigned char *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

void rd_acs_from_config(const unsigned char *b, size_t len, struct rd_acs *a)
{
	memset(a, 0, sizeof *a);
	a->from = "config space";
	if (len < 0x104) {
		a->state = RD_ACS_UNKNOWN;
		snprintf(a->why, sizeof a->why,
			 "only the first %zu bytes of its config space are readable (the extended capabilities "
			 "need root)",
			 len);
		return;
	}
	/* the extended capability list (PCIe: 0x100 to 0xfff, dword aligned); a walk that visits
	 * more headers than fit is a loop */
	unsigned pos = 0x100;
	for (int n = 0; n < (0x1000 - 0x100) / 4; n++) {
		if (pos < 0x100 || pos + 4 > len) {
			set_unknown(a, "config space", "its extended capability list leaves the bytes read");
			return;
		}
		uint32_t h = le32(b + pos);
		if (h == 0 || h == 0xffffffffu) {
			a->state = RD_ACS_ABSENT; /* no (more) extended capabilities */
			return;
		}
		if ((h & 0xffff) == RD_ACS_ECAP_ID) {
			if (pos + 8 > len) {
				set_unknown(a, "config space", "its ACS capability ends past the bytes read");
				return;
			}
			a->state = RD_ACS_READ;
			a->pos = pos;
			a->ctl = (unsigned)(b[pos + 6] | b[pos + 7] << 8) & 0x7f;
			return;
		}
		unsigned next = (h >> 20) & 0xffc;
		if (!next) {
			a->state = RD_ACS_ABSENT;
			return;
		}
		pos = next;
	}
	set_unknown(a, "config space", "its extended capability list loops");
}

/* pciutils ls-ecaps.c cap_acs: the names of bits 0..6, in order */
static const char *const acs_names[] = {"SrcValid",   "TransBlk",   "ReqRedir", "CmpltRedir",
					"UpstreamFwd", "EgressCtrl", "DirectTrans"};

const char *rd_acs_ctl_text(unsigned ctl, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
	for (unsigned i = 0; i < 7 && off < len; i++) {
		int w = snprintf(buf + off, len - off, "%s%s%c", i ? " " : "", acs_names[i], ctl & (1u << i) ? '+' : '-');
		if (w < 0)
			break;
		off += (size_t)w;
	}
	return buf;
}

/* The bits of an ACSCtl line's words ("SrcValid+ TransBlk- ..."), or -1 when a name is missing,
 * repeated or out of order. */
static int parse_ctl_words(const char *s, const char *end)
{
	unsigned ctl = 0;
	for (unsigned i = 0; i < 7; i++) {
		while (s < end && (*s == ' ' || *s == '\t'))
			s++;
		size_t n = strlen(acs_names[i]);
		if ((size_t)(end - s) < n + 1 || memcmp(s, acs_names[i], n) != 0 || (s[n] != '+' && s[n] != '-'))
			return -1;
		if (s[n] == '+')
			ctl |= 1u << i;
		s += n + 1;
		if (s < end && *s != ' ' && *s != '\t' && *s != '\r')
			return -1;
	}
	return (int)ctl;
}

/* True when line (n bytes, at column 0) is the first line of addr's section: "[DDDD:]BB:DD.F ". */
bool rd_lspci_section_of(const char *line, size_t n, const char *addr)
{
	size_t al = strlen(addr); /* "0000:17:01.0" */
	if (n > al && memcmp(line, addr, al) == 0 && line[al] == ' ')
		return true;
	/* without the domain: domain 0000 only */
	return al == 12 && memcmp(addr, "0000:", 5) == 0 && n > 7 && memcmp(line, addr + 5, 7) == 0 && line[7] == ' ';
}

static bool starts(const char *s, const char *end, const char *word)
{
	size_t n = strlen(word);
	return (size_t)(end - s) >= n && memcmp(s, word, n) == 0;
}

void rd_acs_from_lspci(const char *text, size_t len, const char *addr, struct rd_acs *a)
{
	memset(a, 0, sizeof *a);
	a->from = "lspci -vvv";
	const char *p = text, *end = text + len;
	bool in = false, caps = false, acs = false, found = false;
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
				set_unknown(a, "lspci -vvv",
					    "lspci -vvv could not read its capabilities (it was not run as root)");
				return;
			}
			if (starts(s, le, "Capabilities: [")) {
				caps = true;
				acs = memmem(s, (size_t)(le - s), "] Access Control Services", 25) != NULL;
			} else if (acs && starts(s, le, "ACSCtl:")) {
				int ctl = parse_ctl_words(s + 7, le);
				if (ctl < 0) {
					set_unknown(a, "lspci -vvv", "its ACSCtl line is not lspci's");
					return;
				}
				a->state = RD_ACS_READ;
				a->ctl = (unsigned)ctl;
				return;
			}
		}
		p = nl ? nl + 1 : end;
	}
	if (!found)
		set_unknown(a, "lspci -vvv", "it is not in the captured lspci -vvv");
	else if (acs)
		set_unknown(a, "lspci -vvv", "its Access Control Services capability has no ACSCtl line");
	else if (!caps)
		set_unknown(a, "lspci -vvv", "the captured lspci -vvv lists no capability of it");
	else
		a->state = RD_ACS_ABSENT;
}

bool rd_guest_vendor(const char *v)
{
	/* the sys_vendor of hypervisors that only make virtual machines (a cloud's bare-metal
	 * instances keep the cloud's name, so those are told by the CPU flag alone) */
	static const char *const vms[] = {"QEMU", "VMware, Inc.", "Xen", "innotek GmbH", "Parallels Software International Inc.",
					  "Red Hat", "OpenStack Foundation", "Nutanix", "bhyve", NULL};
	if (!v)
		return false;
	for (const char *const *m = vms; *m; m++)
		if (strcmp(v, *m) == 0)
			return true;
	return false;
}

bool rd_cpuinfo_hypervisor(const char *s, size_t len)
{
	/* the first "flags" line (x86; arm64 has "Features", and no such flag) */
	const char *end = s + len;
	for (const char *p = s; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		if (starts(p, le, "flags")) {
			const char *c = memchr(p, ':', (size_t)(le - p));
			if (!c)
				return false;
			for (const char *w = c + 1; w < le;) {
				while (w < le && *w == ' ')
					w++;
				const char *we = w;
				while (we < le && *we != ' ')
					we++;
				if (we - w == 10 && memcmp(w, "hypervisor", 10) == 0)
					return true;
				w = we;
			}
			return false;
		}
		p = nl ? nl + 1 : end;
	}
	return false;
}

void rd_guest_load(struct rd_source *src, struct rd_guest *g)
{
	memset(g, 0, sizeof *g);
	rd_attr_read(src, "sys/class/dmi/id/sys_vendor", &g->sys_vendor);
	struct rd_text t = {0};
	if (rd_read_prefix(src, "proc/cpuinfo", 16384, &t) == 0 && t.data) {
		g->cpuinfo_read = true;
		g->cpuinfo_flag = rd_cpuinfo_hypervisor(t.data, t.len);
	}
	rd_text_free(&t);
	if (g->cpuinfo_flag) {
		g->guest = true;
		snprintf(g->what, sizeof g->what, "the hypervisor flag of /proc/cpuinfo");
	} else if (rd_attr_ok(&g->sys_vendor) && rd_guest_vendor(g->sys_vendor.value)) {
		g->guest = true;
		snprintf(g->what, sizeof g->what, "/sys/class/dmi/id/sys_vendor %s", g->sys_vendor.value);
	}
}

void rd_guest_free(struct rd_guest *g)
{
	rd_attr_free(&g->sys_vendor);
	memset(g, 0, sizeof *g);
}
