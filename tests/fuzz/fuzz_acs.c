/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Fuzz target: PCIe ACS (model/pciacs.h) and the Device Control sizes (model/pcidevctl.h) from
 * config-space bytes and from lspci -vvv text, the input given exactly as read (no NUL added: the
 * parsers take a length), and the cpuinfo test. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/pciacs.h"
#include "model/pcidevctl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly size bytes, so that ASan sees any read past the end */
	unsigned char *b = malloc(size ? size : 1);
	memcpy(b, data, size);
	struct rd_acs a;
	rd_acs_from_config(b, size, &a);
	if (a.state == RD_ACS_READ && (a.ctl > 0x7f || a.pos < 0x100 || a.pos + 8 > size))
		abort();
	static const char *const addrs[] = {"0000:17:01.0", "0000:82:00.0", "0001:00:00.0", "00:0"};
	for (size_t i = 0; i < sizeof addrs / sizeof *addrs; i++) {
		rd_acs_from_lspci((const char *)b, size, addrs[i], &a);
		if (a.state == RD_ACS_READ && a.ctl > 0x7f)
			abort();
		if (!memchr(a.why, '\0', sizeof a.why))
			abort();
	}
	struct rd_devctl d;
	rd_devctl_from_config(b, size, &d);
	if (d.state == RD_DEVCTL_READ &&
	    (rd_devctl_code(d.mrrs) < 0 || rd_devctl_code(d.mps) < 0 || d.pos < 0x40 || d.pos + 10 > size))
		abort();
	for (size_t i = 0; i < sizeof addrs / sizeof *addrs; i++) {
		rd_devctl_from_lspci((const char *)b, size, addrs[i], &d);
		if (d.state == RD_DEVCTL_READ && (rd_devctl_code(d.mrrs) < 0 || rd_devctl_code(d.mps) < 0))
			abort();
		if (!memchr(d.why, '\0', sizeof d.why))
			abort();
	}
	char t[128];
	rd_acs_ctl_text(size ? b[0] : 0, t, sizeof t);
	rd_cpuinfo_hypervisor((const char *)b, size);
	free(b);
	return 0;
}
