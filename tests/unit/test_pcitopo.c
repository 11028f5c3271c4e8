/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The GPU <-> NIC path types (model/pcitopo.h): NCCL's and nvidia-smi's, on
 * trees built in memory (switches, Broadcom PEX switches that NCCL flattens,
 * host bridges, sockets), NCCL_NET_GDR_LEVEL as NCCL reads it, and the load
 * from a root. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "model/host.h"
#include "model/pcitopo.h"
#include "model/system.h"

/* A PLX switch port, a Broadcom Gen4 (DGX A100's 1000:c010:1000:a0xx) and Gen5
 * port, a port of a Broadcom Gen5 switch that an OEM relabelled (subsystem
 * 1028:224b: NCCL does not flatten it), an Intel root port. */
enum { PLX, BCM4, BCM5_TOP, BCM5_SUB, BCM5_DELL, ROOT };
static const unsigned ids[][4] = {{0x10b5, 0x8764, 0x10b5, 0x8764}, {0x1000, 0xc010, 0x1000, 0xa096},
				  {0x1000, 0xc030, 0x1000, 0x0100}, {0x1000, 0xc030, 0x1000, 0x1100},
				  {0x1000, 0xc030, 0x1028, 0x224b}, {0x8086, 0x352a, 0x8086, 0}};

/* fn ADDR NUMA ROOT, then "BDF:KIND" of each bridge from the function up to the
 * root port. */
static void mk(struct rd_topo_fn *f, const char *addr, int numa, const char *root, const char *const *up,
	       const int *kind, size_t n)
{
	memset(f, 0, sizeof *f);
	f->addr = strdup(addr);
	f->root = strdup(root);
	f->numa = f->top_numa = numa;
	f->nup = n + 1;
	f->up = calloc(n + 1, sizeof *f->up);
	f->up[0].addr = strdup(addr);
	for (size_t i = 0; i < n; i++) {
		f->up[i + 1].addr = strdup(up[i]);
		f->up[i + 1].vendor = ids[kind[i]][0];
		f->up[i + 1].device = ids[kind[i]][1];
		f->up[i + 1].sub_vendor = ids[kind[i]][2];
		f->up[i + 1].sub_device = ids[kind[i]][3];
	}
}

static void fn_free(struct rd_topo_fn *f)
{
	for (size_t i = 0; i < f->nup; i++)
		free(f->up[i].addr);
	free(f->up);
	free(f->addr);
	free(f->root);
}

static void expect(const struct rd_topo_fn *a, const struct rd_topo_fn *b, enum rd_topo_type type, int nccl)
{
	struct rd_topo_route r, back;
	rd_topo_route(a, b, &r);
	rd_topo_route(b, a, &back);
	CHECK_STR(rd_topo_type_name(r.type), rd_topo_type_name(type));
	CHECK_STR(rd_nccl_path_name(r.nccl), rd_nccl_path_name(nccl));
	CHECK_INT(back.type, r.type);
	CHECK_INT(back.nccl, r.nccl);
}

/* One switch: the GPU and the NIC below two downstream ports of one upstream
 * port. */
RD_TEST(pix_below_one_switch)
{
	struct rd_topo_fn g, n;
	mk(&g, "0000:19:00.0", 0, "pci0000:15", (const char *[]){"0000:17:01.0", "0000:16:00.0", "0000:15:01.0"},
	   (const int[]){BCM5_DELL, BCM5_DELL, ROOT}, 3);
	mk(&n, "0000:1a:00.0", 0, "pci0000:15", (const char *[]){"0000:17:02.0", "0000:16:00.0", "0000:15:01.0"},
	   (const int[]){BCM5_DELL, BCM5_DELL, ROOT}, 3);
	expect(&g, &n, RD_TOPO_PIX, RD_NCCL_PIX);
	expect(&g, &g, RD_TOPO_X, RD_NCCL_LOC);
	struct rd_topo_route r;
	rd_topo_route(&g, &n, &r);
	char *t = rd_topo_route_text(&g, &n, &r);
	CHECK_STR(t, "0000:19:00.0 - 0000:17:01.0 - 0000:16:00.0 - 0000:17:02.0 - "
		     "0000:1a:00.0");
	free(t);
	fn_free(&g);
	fn_free(&n);
}

/* Two levels of PLX switches: PXB for both. */
RD_TEST(pxb_below_two_switches)
{
	struct rd_topo_fn g, n;
	mk(&g, "0000:07:00.0", 0, "pci0000:00",
	   (const char *[]){"0000:05:08.0", "0000:04:00.0", "0000:03:00.0", "0000:02:00.0", "0000:00:01.0"},
	   (const int[]){PLX, PLX, PLX, PLX, ROOT}, 5);
	mk(&n, "0000:0c:00.0", 0, "pci0000:00", (const char *[]){"0000:03:10.0", "0000:02:00.0", "0000:00:01.0"},
	   (const int[]){PLX, PLX, ROOT}, 3);
	expect(&g, &n, RD_TOPO_PXB, RD_NCCL_PXB);
	fn_free(&g);
	fn_free(&n);
}

/* A Broadcom PEX switch that shows two levels (Gen4 c010 a0xx; Gen5 c030 0xxx
 * over 1xxx): NCCL merges the lower level into the upper (PIX), nvidia-smi
 * counts both (PXB).  An OEM subsystem id is not merged. */
RD_TEST(broadcom_two_level_switch_flattened_by_nccl)
{
	static const int kinds[][2] = {
		{BCM4, BCM4}, {BCM5_SUB, BCM5_TOP}, {BCM5_DELL, BCM5_DELL}, {BCM5_TOP, BCM5_SUB}};
	static const int want[] = {RD_NCCL_PIX, RD_NCCL_PIX, RD_NCCL_PXB, RD_NCCL_PXB};
	for (size_t k = 0; k < 4; k++) {
		struct rd_topo_fn g, n;
		mk(&g, "0000:07:00.0", 0, "pci0000:00",
		   (const char *[]){"0000:05:00.0", "0000:04:00.0", "0000:03:00.0", "0000:02:00.0", "0000:00:01.0"},
		   (const int[]){kinds[k][0], kinds[k][0], kinds[k][1], kinds[k][1], ROOT}, 5);
		mk(&n, "0000:0c:00.0", 0, "pci0000:00",
		   (const char *[]){"0000:03:10.0", "0000:02:00.0", "0000:00:01.0"},
		   (const int[]){kinds[k][1], kinds[k][1], ROOT}, 3);
		expect(&g, &n, RD_TOPO_PXB, want[k]);
		fn_free(&g);
		fn_free(&n);
	}
}

/* Through the CPU: one host bridge (PHB), two host bridges of one NUMA node
 * (NODE; NCCL: PHB), two NUMA nodes (SYS, the path names the CPU interconnect).
 */
RD_TEST(phb_node_sys_through_the_cpu)
{
	struct rd_topo_fn g, n1, n2, n3;
	mk(&g, "0000:19:00.0", 0, "pci0000:00", (const char *[]){"0000:00:01.0"}, (const int[]){ROOT}, 1);
	mk(&n1, "0000:1a:00.0", 0, "pci0000:00", (const char *[]){"0000:00:03.0"}, (const int[]){ROOT}, 1);
	mk(&n2, "0000:3c:00.0", 0, "pci0000:37", (const char *[]){"0000:37:01.0"}, (const int[]){ROOT}, 1);
	mk(&n3, "0000:9c:00.0", 1, "pci0000:97", (const char *[]){"0000:97:01.0"}, (const int[]){ROOT}, 1);
	expect(&g, &n1, RD_TOPO_PHB, RD_NCCL_PHB);
	expect(&g, &n2, RD_TOPO_NODE, RD_NCCL_PHB);
	expect(&g, &n3, RD_TOPO_SYS, RD_NCCL_SYS);
	struct rd_topo_route r;
	rd_topo_route(&g, &n3, &r);
	char *t = rd_topo_route_text(&g, &n3, &r);
	CHECK_STR(t, "0000:19:00.0 - 0000:00:01.0 - pci0000:00 (host bridge, NUMA node 0) "
		     "- the CPU interconnect - "
		     "pci0000:97 (host bridge, NUMA node 1) - 0000:97:01.0 - 0000:9c:00.0");
	free(t);
	/* a path that could not be read */
	n1.err = 2;
	expect(&g, &n1, RD_TOPO_UNKNOWN, -1);
	fn_free(&g);
	fn_free(&n1);
	fn_free(&n2);
	fn_free(&n3);
}

/* NCCL_NET_GDR_LEVEL as ncclGetLevel reads it: a name (exactly), or the old
 * numbers. */
RD_TEST(gdr_level_as_nccl_reads_it)
{
	CHECK_INT(rd_nccl_gdr_level_parse("PIX"), RD_NCCL_PIX);
	CHECK_INT(rd_nccl_gdr_level_parse("PXB"), RD_NCCL_PXB);
	CHECK_INT(rd_nccl_gdr_level_parse("P2C"), RD_NCCL_P2C);
	CHECK_INT(rd_nccl_gdr_level_parse("PHB"), RD_NCCL_PHB);
	CHECK_INT(rd_nccl_gdr_level_parse("SYS"), RD_NCCL_SYS);
	CHECK_INT(rd_nccl_gdr_level_parse("LOC"), RD_NCCL_LOC);
	CHECK_INT(rd_nccl_gdr_level_parse("0"), RD_NCCL_LOC);
	CHECK_INT(rd_nccl_gdr_level_parse("1"), RD_NCCL_PIX);
	CHECK_INT(rd_nccl_gdr_level_parse("2"), RD_NCCL_PXB);
	CHECK_INT(rd_nccl_gdr_level_parse("3"), RD_NCCL_PHB);
	CHECK_INT(rd_nccl_gdr_level_parse("4"), RD_NCCL_SYS);
	CHECK_INT(rd_nccl_gdr_level_parse("99"), RD_NCCL_SYS);
	CHECK_INT(rd_nccl_gdr_level_parse("phb"), -1);
	CHECK_INT(rd_nccl_gdr_level_parse("NODE"), -1);
	CHECK_INT(rd_nccl_gdr_level_parse(""), -1);
	CHECK_INT(rd_nccl_gdr_level_parse(NULL), -1);
	struct rd_pcitopo t = {.gdr_level = -1};
	CHECK_INT(rd_pcitopo_gdr_level(&t), RD_NCCL_PXB);
	t.gdr_level = RD_NCCL_SYS;
	CHECK_INT(rd_pcitopo_gdr_level(&t), RD_NCCL_SYS);
}

static const char *env_phb(const char *name)
{
	return strcmp(name, "NCCL_NET_GDR_LEVEL") == 0 ? "PHB" : NULL;
}

/* From a root: the links of sys/bus/pci/devices resolved into sys/devices, the
 * NUMA node of NCCL's topmost PCI node, and a bridge with functions of two
 * buses below it (not a PCIe hierarchy). */
RD_TEST(load_from_a_root)
{
	char cmd[4096], root[512];
	rd_test_mkdtemp(root, sizeof root, "rd-pcitopo");
	snprintf(cmd, sizeof cmd,
		 "cd %s && p=sys/devices/pci0000:15/0000:15:01.0 && mkdir -p "
		 "$p/0000:16:00.0/0000:17:01.0/0000:19:00.0 "
		 "$p/0000:16:00.0/0000:17:02.0/0000:1a:00.0/infiniband/mlx5_0 "
		 "sys/bus/pci/devices sys/class/infiniband "
		 "&& for d in $p $p/0000:16:00.0; do echo 0 > $d/numa_node; done "
		 "&& echo 0x10de > $p/0000:16:00.0/0000:17:01.0/0000:19:00.0/vendor "
		 "&& echo 0x030200 > $p/0000:16:00.0/0000:17:01.0/0000:19:00.0/class "
		 "&& echo -1 > $p/0000:16:00.0/0000:17:01.0/0000:19:00.0/numa_node "
		 "&& echo 0-55,112-167 > "
		 "$p/0000:16:00.0/0000:17:01.0/0000:19:00.0/local_cpulist "
		 "&& ln -s "
		 "../../../devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:01.0/"
		 "0000:19:00.0 sys/bus/pci/devices/0000:19:00.0 "
		 "&& ln -s "
		 "../../../devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:02.0/"
		 "0000:1a:00.0 sys/bus/pci/devices/0000:1a:00.0 "
		 "&& ln -s "
		 "../../devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:02.0/"
		 "0000:1a:00.0/infiniband/mlx5_0 sys/class/infiniband/mlx5_0 "
		 "&& ln -s ../../../0000:1a:00.0 "
		 "$p/0000:16:00.0/0000:17:02.0/0000:1a:00.0/infiniband/mlx5_0/device",
		 root);
	CHECK(system(cmd) == 0);
	struct rd_source *src = NULL;
	char err[256];
	CHECK_INT(rd_source_open(root, &src, err, sizeof err), 0);
	struct rd_host h;
	rd_host_load(src, 0, &h);
	struct rd_system sys;
	rd_system_load(src, &h, NULL, &sys);
	struct rd_pcitopo t;
	rd_pcitopo_load(src, &h, sys.pci, sys.npci, sys.pci_err, env_phb, &t);
	CHECK_INT(t.ngpus, 1);
	CHECK_INT(t.nnics, 1);
	CHECK_STR(t.gpus[0].root, "pci0000:15");
	CHECK_STR(t.gpus[0].sysfs, "/sys/devices/pci0000:15/0000:15:01.0/"
				   "0000:16:00.0/0000:17:01.0/0000:19:00.0");
	CHECK_INT(t.gpus[0].nup, 4);
	CHECK_INT(t.gpus[0].numa, -1);
	CHECK_INT(t.gpus[0].top_numa, 0); /* NCCL's top PCI node is 0000:16:00.0, on NUMA node 0 */
	CHECK_STR(rd_attr_value(&t.gpus[0].local_cpulist), "0-55,112-167");
	CHECK_STR(t.nics[0].name, "mlx5_0");
	CHECK_STR(t.gdr_env, "PHB");
	CHECK_INT(rd_pcitopo_gdr_level(&t), RD_NCCL_PHB);
	CHECK_STR(t.flat_bridge, "");
	struct rd_topo_route r;
	rd_topo_route(&t.gpus[0], &t.nics[0], &r);
	CHECK_INT(r.type, RD_TOPO_PIX);
	rd_pcitopo_free(&t);
	rd_system_free(&sys);
	rd_host_free(&h);
	rd_source_close(src);
	/* a second function of another bus right below the root port: not a PCIe
   * hierarchy */
	snprintf(cmd, sizeof cmd,
		 "cd %s && mkdir -p sys/devices/pci0000:15/0000:15:01.0/0000:2a:00.0 && "
		 "echo 0x10de > sys/devices/pci0000:15/0000:15:01.0/0000:2a:00.0/vendor "
		 "&& echo 0x030000 > "
		 "sys/devices/pci0000:15/0000:15:01.0/0000:2a:00.0/class "
		 "&& ln -s ../../../devices/pci0000:15/0000:15:01.0/0000:2a:00.0 "
		 "sys/bus/pci/devices/0000:2a:00.0",
		 root);
	CHECK(system(cmd) == 0);
	CHECK_INT(rd_source_open(root, &src, err, sizeof err), 0);
	rd_host_load(src, 0, &h);
	rd_system_load(src, &h, NULL, &sys);
	CHECK_INT(sys.topo.ngpus, 2);
	CHECK_STR(sys.topo.flat_bridge, "0000:15:01.0");
	rd_system_free(&sys);
	rd_host_free(&h);
	rd_source_close(src);
	snprintf(cmd, sizeof cmd, "rm -rf %s", root);
	CHECK(system(cmd) == 0);
}
