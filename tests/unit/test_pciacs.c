/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* PCIe ACS (model/pciacs.h): the control register from config-space bytes (the extended
 * capability list, short reads, loops) and from lspci -vvv's real lines (leptonai/gpud's capture
 * of an 8x H100 host, pkg/pci/testdata/lspci-vvv), the virtual-machine test, the kernel
 * config values gdr.mode reads (model/pcitopo.h), and both readers on a real kernel's ports (the q35
 * machine of tests/vm/q35.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "model/pciacs.h"
#include "model/pcidevctl.h"
#include "model/pcitopo.h"

static void put32(unsigned char *b, unsigned off, unsigned v)
{
	for (int i = 0; i < 4; i++)
		b[off + i] = (unsigned char)(v >> (8 * i));
}

RD_TEST(acs_config_walks_the_extended_list)
{
	static unsigned char b[4096];
	memset(b, 0, sizeof b);
	struct rd_acs a;
	/* AER at 0x100 (v2), then ACS at 0x170 with the control of the gpud host's PMC-Sierra ports */
	put32(b, 0x100, 0x0001 | 2 << 16 | 0x170u << 20);
	put32(b, 0x170, 0x000d | 1 << 16);
	b[0x174] = 0x5f;
	b[0x176] = 0x1d;
	rd_acs_from_config(b, sizeof b, &a);
	CHECK_INT(a.state, RD_ACS_READ);
	CHECK_INT(a.pos, 0x170);
	CHECK_INT(a.ctl, RD_ACS_SV | RD_ACS_RR | RD_ACS_CR | RD_ACS_UF);
	char t[128];
	CHECK_STR(rd_acs_ctl_text(a.ctl, t, sizeof t),
		  "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-");
	/* what an unprivileged read returns: the standard header only */
	rd_acs_from_config(b, 64, &a);
	CHECK_INT(a.state, RD_ACS_UNKNOWN);
	CHECK(strstr(a.why, "first 64 bytes") && strstr(a.why, "root"));
	rd_acs_from_config(b, 256, &a);
	CHECK_INT(a.state, RD_ACS_UNKNOWN);
	/* the list ends without ACS */
	put32(b, 0x170, 0x0003 | 1 << 16);
	rd_acs_from_config(b, sizeof b, &a);
	CHECK_INT(a.state, RD_ACS_ABSENT);
	/* no extended capability at all, or a function that answers all ones */
	put32(b, 0x100, 0);
	rd_acs_from_config(b, sizeof b, &a);
	CHECK_INT(a.state, RD_ACS_ABSENT);
	put32(b, 0x100, 0xffffffffu);
	rd_acs_from_config(b, sizeof b, &a);
	CHECK_INT(a.state, RD_ACS_ABSENT);
	/* a loop, a pointer into the standard header, a capability cut by the read */
	put32(b, 0x100, 0x0001 | 0x100u << 20);
	rd_acs_from_config(b, sizeof b, &a);
	CHECK_INT(a.state, RD_ACS_UNKNOWN);
	CHECK(strstr(a.why, "loops"));
	put32(b, 0x100, 0x0001 | 0x040u << 20);
	rd_acs_from_config(b, sizeof b, &a);
	CHECK_INT(a.state, RD_ACS_UNKNOWN);
	put32(b, 0x100, 0x000d | 1 << 16);
	rd_acs_from_config(b, 0x106, &a);
	CHECK_INT(a.state, RD_ACS_UNKNOWN);
	rd_acs_from_config(b, 0x108, &a);
	CHECK_INT(a.state, RD_ACS_READ);
	CHECK_INT(a.pos, 0x100);
}

/* lines of the capture, verbatim (tabs as lspci prints them) */
static const char lspci[] =
	"16:00.0 PCI bridge: Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0) (prog-if 00 [Normal decode])\n"
	"\tCapabilities: [40] Power Management version 3\n"
	"\tCapabilities: [100 v1] Device Serial Number 00-80-5e-dc-5f-09-56-18\n"
	"\n"
	"17:01.0 PCI bridge: Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0) (prog-if 00 [Normal decode])\n"
	"\tCapabilities: [100 v1] Advanced Error Reporting\n"
	"\t\tUESta:\tDLP- SDES- TLP- FCP- CmpltTO- CmpltAbrt- UnxCmplt- RxOF- MalfTLP- ECRC- UnsupReq- ACSViol-\n"
	"\tCapabilities: [170 v1] Access Control Services\n"
	"\t\tACSCap:\tSrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl+ DirectTrans+\n"
	"\t\tACSCtl:\tSrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-\n"
	"\n"
	"0000:82:00.0 PCI bridge: PMC-Sierra Inc. Device 4128 (prog-if 00 [Normal decode])\n"
	"\tCapabilities: [1cc v1] Access Control Services\n"
	"\t\tACSCap:\tSrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl+ DirectTrans+\n"
	"\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-\n"
	"\n"
	"0000:97:01.0 PCI bridge: Intel Corporation Device 352a (rev 04) (prog-if 00 [Normal decode])\n"
	"\tCapabilities: <access denied>\n"
	"\n"
	"0000:98:00.0 PCI bridge: Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0) (prog-if 00 [Normal decode])\n"
	"\tCapabilities: [170 v1] Access Control Services\n"
	"\t\tACSCtl:\tSrcValid- TransBlk- ReqRedir+\n"
	"99:01.0 PCI bridge: Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0) (prog-if 00 [Normal decode])\n";

RD_TEST(acs_lspci_reads_the_acsctl_line)
{
	struct rd_acs a;
	size_t n = strlen(lspci);
	rd_acs_from_lspci(lspci, n, "0000:17:01.0", &a);
	CHECK_INT(a.state, RD_ACS_READ);
	CHECK_INT(a.ctl, 0);
	CHECK_STR(a.from, "lspci -vvv");
	rd_acs_from_lspci(lspci, n, "0000:82:00.0", &a); /* lspci -D */
	CHECK_INT(a.state, RD_ACS_READ);
	CHECK_INT(a.ctl, RD_ACS_SV | RD_ACS_RR | RD_ACS_CR | RD_ACS_UF);
	/* an upstream port without ACS; lspci run unprivileged; not in the capture; a cut line */
	rd_acs_from_lspci(lspci, n, "0000:16:00.0", &a);
	CHECK_INT(a.state, RD_ACS_ABSENT);
	rd_acs_from_lspci(lspci, n, "0000:97:01.0", &a);
	CHECK_INT(a.state, RD_ACS_UNKNOWN);
	CHECK(strstr(a.why, "not run as root"));
	rd_acs_from_lspci(lspci, n, "0000:5b:01.0", &a);
	CHECK_INT(a.state, RD_ACS_UNKNOWN);
	CHECK(strstr(a.why, "not in the captured"));
	rd_acs_from_lspci(lspci, n, "0000:98:00.0", &a);
	CHECK_INT(a.state, RD_ACS_UNKNOWN);
	/* a section of another domain is not domain 0000's; a section without capabilities */
	rd_acs_from_lspci(lspci, n, "0001:17:01.0", &a);
	CHECK_INT(a.state, RD_ACS_UNKNOWN);
	rd_acs_from_lspci(lspci, n, "0000:99:01.0", &a);
	CHECK_INT(a.state, RD_ACS_UNKNOWN);
	/* the text ends inside the line: never read past len */
	const char *cut = strstr(lspci, "ReqRedir- CmpltRedir- UpstreamFwd-");
	rd_acs_from_lspci(lspci, (size_t)(cut - lspci) + 4, "0000:17:01.0", &a);
	CHECK_INT(a.state, RD_ACS_UNKNOWN);
}

RD_TEST(acs_guest_is_told_by_the_cpu_flag_or_the_vendor)
{
	static const char host[] = "processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu vme de pse tsc msr "
				   "hypervisorx lahf_lm\n\nprocessor\t: 1\nflags\t\t: fpu hypervisor\n";
	static const char vm[] = "processor\t: 0\nflags\t\t: fpu vme ss syscall nx pdpe1gb rdtscp lm constant_tsc "
				 "rep_good nopl xtopology cpuid tsc_known_freq pni pclmulqdq hypervisor lahf_lm\n";
	CHECK(!rd_cpuinfo_hypervisor(host, strlen(host))); /* only the first processor's flags */
	CHECK(rd_cpuinfo_hypervisor(vm, strlen(vm)));
	CHECK(!rd_cpuinfo_hypervisor(vm, 20));
	CHECK(rd_guest_vendor("QEMU"));
	CHECK(rd_guest_vendor("VMware, Inc."));
	CHECK(!rd_guest_vendor("Dell Inc."));
	CHECK(!rd_guest_vendor("Amazon EC2")); /* its metal instances too: told by the flag */
	CHECK(!rd_guest_vendor(NULL));
}

RD_TEST(kconfig_value_reads_set_unset_and_absent)
{
	static const char c[] = "CONFIG_DMA_SHARED_BUFFER_X=n\nCONFIG_DMA_SHARED_BUFFER=y\n# CONFIG_PCI_P2PDMA is not set\n"
				"CONFIG_DMABUF_HEAPS=m";
	char v[4];
	rd_kconfig_value(c, strlen(c), "CONFIG_DMA_SHARED_BUFFER", v);
	CHECK_STR(v, "y");
	rd_kconfig_value(c, strlen(c), "CONFIG_PCI_P2PDMA", v);
	CHECK_STR(v, "n");
	rd_kconfig_value(c, strlen(c), "CONFIG_DMABUF_HEAPS", v);
	CHECK_STR(v, "m");
	rd_kconfig_value(c, strlen(c), "CONFIG_PCI", v);
	CHECK_STR(v, "");
	rd_kconfig_value(c, strlen(c) - 1, "CONFIG_DMABUF_HEAPS", v); /* "=" at the end of the text */
	CHECK_STR(v, "");
}

static char *slurp_fixture(const char *name, size_t *len)
{
	char *path = rd_xasprintf("%s/vm/fixtures/q35/%s", rd_test_dir(), name);
	FILE *f = fopen(path, "rb");
	if (!f)
		rd_test_fail(__FILE__, __LINE__, "cannot read %s", path);
	struct rd_buf b = {0};
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		rd_buf_add(&b, chunk, n);
	fclose(f);
	free(path);
	*len = b.len;
	return b.data ? rd_buf_steal(&b) : rd_xstrdup("");
}

/* A real kernel's config space and pciutils' lspci -vvv of the same ports (the q35 machine of
 * tests/vm/q35.sh; tests/vm/fixtures/q35/SOURCES): both readers give the bits the kernel set on a
 * QEMU root port (0x001d at 0x148), 0 after setpci -s BDF ECAP_ACS+0x6.w=0000, and no ACS on the
 * XIO3130 switch's downstream port. */
RD_TEST(acs_real_q35_config_and_lspci_agree)
{
	size_t n, ln;
	struct rd_acs a, l;
	char *cfg = slurp_fixture("root-port-00-03.0-config", &n);
	char *text = slurp_fixture("lspci-vvv-q35.txt", &ln);
	CHECK_INT(n, 4096);
	rd_acs_from_config((const unsigned char *)cfg, n, &a);
	CHECK_INT(a.state, RD_ACS_READ);
	CHECK_INT(a.pos, 0x148);
	CHECK_INT(a.ctl, RD_ACS_SV | RD_ACS_RR | RD_ACS_CR | RD_ACS_UF);
	rd_acs_from_lspci(text, ln, "0000:00:03.0", &l);
	CHECK_INT(l.state, RD_ACS_READ);
	CHECK_INT(l.ctl, a.ctl);
	rd_acs_from_lspci(text, ln, "0000:02:00.0", &l);
	CHECK_INT(l.state, RD_ACS_ABSENT);
	rd_acs_from_lspci(text, ln, "0000:01:00.0", &l);
	CHECK_INT(l.state, RD_ACS_ABSENT);
	free(cfg);
	cfg = slurp_fixture("switch-port-02-00.0-config", &n);
	CHECK_INT(n, 4096);
	rd_acs_from_config((const unsigned char *)cfg, n, &a);
	CHECK_INT(a.state, RD_ACS_ABSENT);
	free(cfg);
	free(text);
	cfg = slurp_fixture("root-port-00-03.0-config-after-setpci", &n);
	text = slurp_fixture("lspci-vvv-q35-after-setpci.txt", &ln);
	rd_acs_from_config((const unsigned char *)cfg, n, &a);
	CHECK_INT(a.state, RD_ACS_READ);
	CHECK_INT(a.pos, 0x148);
	CHECK_INT(a.ctl, 0);
	rd_acs_from_lspci(text, ln, "0000:00:03.0", &l);
	CHECK_INT(l.state, RD_ACS_READ);
	CHECK_INT(l.ctl, 0);
	free(cfg);
	free(text);
}

/* The PCI Express Device Control register (model/pcidevctl.h): the standard capability list from
 * the pointer at 0x34, the sizes of bits 14:12 and 7:5, short reads, loops and reserved codes; and
 * lspci -vvv's DevCtl lines. */
RD_TEST(devctl_config_walks_the_capability_list)
{
	unsigned char b[256] = {0};
	struct rd_devctl d;
	put32(b, 0, 0x101915b3); /* a ConnectX-7's ids */
	b[6] = 0x10;             /* capability list */
	b[0x34] = 0x40;
	b[0x40] = 0x01, b[0x41] = 0x60; /* power management, then */
	b[0x60] = RD_PCI_CAP_EXP, b[0x61] = 0x00;
	put32(b, 0x64, 0x2); /* DevCap: 512 bytes supported */
	b[0x68] = 0x3f, b[0x69] = 0x51; /* DevCtl 0x513f: MRRS 4096 (5), MPS 256 (1) */
	rd_devctl_from_config(b, sizeof b, &d);
	CHECK_INT(d.state, RD_DEVCTL_READ);
	CHECK_INT(d.pos, 0x60);
	CHECK_INT(d.mrrs, 4096);
	CHECK_INT(d.mps, 256);
	CHECK_INT(d.mps_cap, 512);
	CHECK_INT(d.ctl, 0x513f);
	b[0x69] = 0x21; /* MRRS 512 (2) */
	rd_devctl_from_config(b, sizeof b, &d);
	CHECK_INT(d.mrrs, 512);
	b[0x69] = 0x61; /* a reserved code (6) */
	rd_devctl_from_config(b, sizeof b, &d);
	CHECK_INT(d.state, RD_DEVCTL_UNKNOWN);
	CHECK(strstr(d.why, "reserved") != NULL);
	b[0x69] = 0x51;
	rd_devctl_from_config(b, 64, &d); /* what an unprivileged read returns */
	CHECK_INT(d.state, RD_DEVCTL_UNKNOWN);
	CHECK(strstr(d.why, "only the first 64 bytes") != NULL);
	rd_devctl_from_config(b, 0x62, &d); /* the capability's header, not its registers */
	CHECK_INT(d.state, RD_DEVCTL_UNKNOWN);
	CHECK(strstr(d.why, "PCI Express capability at 0x60") != NULL);
	rd_devctl_from_config(b, 32, &d);
	CHECK_INT(d.state, RD_DEVCTL_UNKNOWN);
	b[0x61] = 0x40; /* a loop back to the first capability */
	b[0x60] = 0x05;
	rd_devctl_from_config(b, sizeof b, &d);
	CHECK_INT(d.state, RD_DEVCTL_UNKNOWN);
	CHECK(strstr(d.why, "no PCI Express capability") != NULL);
	b[0x41] = 0x20; /* a pointer into the header */
	rd_devctl_from_config(b, sizeof b, &d);
	CHECK_INT(d.state, RD_DEVCTL_UNKNOWN);
	b[6] = 0;
	rd_devctl_from_config(b, sizeof b, &d);
	CHECK_INT(d.state, RD_DEVCTL_UNKNOWN);
	memset(b, 0xff, sizeof b);
	rd_devctl_from_config(b, sizeof b, &d);
	CHECK(strstr(d.why, "all ones") != NULL);
	CHECK_INT(rd_devctl_code(4096), 5);
	CHECK_INT(rd_devctl_code(128), 0);
	CHECK_INT(rd_devctl_code(8192), -1);
	CHECK_INT(rd_devctl_code(300), -1);
}

RD_TEST(devctl_lspci_lines)
{
	static const char text[] = "0000:1b:00.0 Infiniband controller: Mellanox Technologies MT2910 Family [ConnectX-7]\n"
				   "\tCapabilities: [60] Express (v2) Endpoint, MSI 00\n"
				   "\t\tDevCap:\tMaxPayload 512 bytes, PhantFunc 0, Latency L0s unlimited, L1 unlimited\n"
				   "\t\tDevCtl:\tCorrErr- NonFatalErr+ FatalErr+ UnsupReq-\n"
				   "\t\t\tRlxdOrd+ ExtTag+ PhantFunc- AuxPwr- NoSnoop+ FLReset-\n"
				   "\t\t\tMaxPayload 256 bytes, MaxReadReq 4096 bytes\n"
				   "\t\tDevSta:\tCorrErr+ NonFatalErr- FatalErr- UnsupReq+ AuxPwr- TransPend-\n"
				   "1b:00.1 Infiniband controller: Mellanox Technologies MT2910 Family [ConnectX-7]\n"
				   "\tCapabilities: <access denied>\n"
				   "0000:2a:00.0 Infiniband controller: Mellanox Technologies MT2910 Family [ConnectX-7]\n"
				   "\tCapabilities: [60] Express (v2) Endpoint, MSI 00\n"
				   "\t\tDevCtl:\tCorrErr- NonFatalErr+ FatalErr+ UnsupReq-\n"
				   "\t\t\tMaxPayload 256 bytes, MaxReadReq 3000 bytes\n"
				   "0000:3a:00.0 Ethernet controller: Intel Corporation I350\n"
				   "\tCapabilities: [40] Power Management version 3\n";
	struct rd_devctl d;
	rd_devctl_from_lspci(text, sizeof text - 1, "0000:1b:00.0", &d);
	CHECK_INT(d.state, RD_DEVCTL_READ);
	CHECK_INT(d.mrrs, 4096);
	CHECK_INT(d.mps, 256);
	CHECK_STR(d.from, "lspci -vvv");
	rd_devctl_from_lspci(text, sizeof text - 1, "0000:1b:00.1", &d);
	CHECK_INT(d.state, RD_DEVCTL_UNKNOWN);
	CHECK(strstr(d.why, "not run as root") != NULL);
	rd_devctl_from_lspci(text, sizeof text - 1, "0000:2a:00.0", &d);
	CHECK_INT(d.state, RD_DEVCTL_UNKNOWN);
	rd_devctl_from_lspci(text, sizeof text - 1, "0000:3a:00.0", &d);
	CHECK_INT(d.state, RD_DEVCTL_UNKNOWN);
	CHECK(strstr(d.why, "no PCI Express capability") != NULL);
	rd_devctl_from_lspci(text, sizeof text - 1, "0000:99:00.0", &d);
	CHECK(strstr(d.why, "not in the captured") != NULL);
	rd_devctl_from_lspci(text, 40, "0000:1b:00.0", &d); /* cut inside the section */
	CHECK_INT(d.state, RD_DEVCTL_UNKNOWN);
}

/* The real q35 kernel's config space and lspci -vvv of the same port agree. */
RD_TEST(devctl_real_q35_config_and_lspci_agree)
{
	size_t n, ln;
	struct rd_devctl a, l;
	char *text = slurp_fixture("lspci-vvv-q35.txt", &ln);
	static const char *const files[] = {"root-port-00-03.0-config", "switch-port-02-00.0-config"};
	static const char *const addrs[] = {"0000:00:03.0", "0000:02:00.0"};
	for (size_t i = 0; i < 2; i++) {
		char *cfg = slurp_fixture(files[i], &n);
		rd_devctl_from_config((const unsigned char *)cfg, n, &a);
		rd_devctl_from_lspci(text, ln, addrs[i], &l);
		CHECK_INT(a.state, RD_DEVCTL_READ);
		CHECK_INT(l.state, RD_DEVCTL_READ);
		CHECK_INT(a.mrrs, l.mrrs);
		CHECK_INT(a.mps, l.mps);
		CHECK_INT(a.mrrs, 128);
		free(cfg);
	}
	free(text);
}
