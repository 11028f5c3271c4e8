/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The host model over the bundled example roots and the real data in ../shared/fixtures/real. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "model/host.h"
#include "model/link.h"
#include "model/policy.h"
#include "model/system.h"

static struct rd_source *open_example(const char *name)
{
	char path[1024], err[256];
	struct rd_source *src = NULL;
	snprintf(path, sizeof path, "%s/../examples/%s", rd_test_dir(), name);
	CHECK_INT(rd_source_open(path, &src, err, sizeof err), 0);
	return src;
}

/* The ports' counters, read as check reads them (model/link.h). */
static void load_counters(struct rd_source *src, struct rd_host *h)
{
	struct rd_policy pol;
	struct rd_link lk = {0};
	rd_policy_defaults(&pol);
	rd_link_counters_load(src, h, &pol, &lk);
	rd_link_free(&lk);
	rd_policy_free(&pol);
}

RD_TEST(h100_ofed_example)
{
	struct rd_source *src = open_example("h100-ofed");
	struct rd_host h;
	rd_host_load(src, 0, &h);
	load_counters(src, &h);
	CHECK_STR(h.hostname.value, "gpu-node-017");
	CHECK_STR(h.osrelease.value, "5.15.0-125-generic");
	CHECK_INT(h.ndevices, 9);
	CHECK_STR(h.devices[8].name, "mlx5_bond_0"); /* natural order */
	const struct rd_device *d = rd_host_device(&h, "mlx5_3");
	CHECK(d != NULL);
	CHECK_STR(d->model, "ConnectX-7");
	CHECK_STR(d->pci_addr, "0000:3b:00.0");
	CHECK_STR(d->driver, "mlx5_core");
	CHECK_INT(d->numa_node, 0);
	CHECK_INT(d->node_type_v, 1);
	CHECK(d->node_guid_v == 0xa088c20300c8e1f2ULL);
	CHECK_INT(d->nports, 1);
	const struct rd_port *p = &d->ports[0];
	CHECK_INT(p->state_v, RD_PORT_ACTIVE);
	CHECK_INT(p->phys_v, RD_PHYS_LINKUP);
	CHECK(p->rate_ok && p->rate_v.gbps == 400 && p->rate_v.width == 4);
	CHECK_STR(p->rate_v.speed, "NDR");
	CHECK(p->is_ib);
	CHECK_INT(p->lid_v, 0x33b3);
	CHECK_INT(p->sm_lid_v, 1);
	CHECK_STR(p->has_smi.value, "1");
	CHECK_STR(p->rate.path, "/sys/class/infiniband/mlx5_3/ports/1/rate");
	CHECK(p->ncounters >= 7);
	CHECK_INT(p->pkeys.n, 2);
	CHECK(p->ngids >= 1 && p->gids[0].index == 0);
	CHECK(p->gids[0].ndev == NULL); /* IB: gid_attrs/ndevs/0 fails with EINVAL (recorded in the root) */
	CHECK_STR(p->gids[0].type, "IB/RoCE v1");
	const struct rd_device *bond = rd_host_device(&h, "mlx5_bond_0");
	CHECK_STR(bond->model, "BlueField-3");
	CHECK(!bond->ports[0].is_ib);
	CHECK_INT(bond->ports[0].nnetdevs, 1);
	CHECK_STR(bond->ports[0].netdevs[0].name, "bond0");
	CHECK_INT(bond->ports[0].netdevs[0].mtu_v, 9000);
	CHECK_INT(h.nuverbs, 9);
	CHECK_INT(h.numad, 9);
	CHECK_INT(h.nissm, 9); /* the RoCE port has one too, as on a real kernel */
	CHECK(rd_strv_contains(&h.devnodes, "rdma_cm"));
	const struct rd_module *m = rd_host_module(&h, "mlx5_core");
	CHECK(m && m->loaded);
	CHECK_STR(m->version.value, "24.10-2.1.8");
	CHECK_STR(m->taint, "OE");
	CHECK_INT(rd_module_out_of_tree(m), 1);
	m = rd_host_module(&h, "ib_core");
	CHECK_INT(m->holders.n, 9);
	CHECK(rd_strv_contains(&m->holders, "nvidia_peermem"));
	rd_host_free(&h);
	rd_source_close(src);
}

RD_TEST(rxe_qemu_example_real_kernel_values)
{
	struct rd_source *src = open_example("rxe-qemu");
	struct rd_host h;
	rd_host_load(src, 0, &h);
	CHECK_INT(h.ndevices, 1);
	const struct rd_device *d = &h.devices[0];
	CHECK_STR(d->name, "rxe0");
	CHECK_STR(d->parent, "eth0");
	CHECK_STR(d->fw_ver.value, ""); /* rxe has an empty fw_ver */
	CHECK_INT(d->hca_type.err, ENOENT);
	CHECK(d->model == NULL);
	const struct rd_port *p = &d->ports[0];
	CHECK(p->rate_ok && p->rate_v.gbps == 2.5);
	CHECK(!p->is_ib);
	CHECK_INT(p->ngids, 3); /* gid 0, 1, 2 non-zero (3.. zero) */
	CHECK_STR(p->gids[1].type, "RoCE v2");
	CHECK_STR(p->gids[1].ndev, "eth0");
	CHECK_INT(p->nnetdevs, 1);
	CHECK_INT(p->netdevs[0].mtu_v, 1500);
	CHECK_INT(h.nuverbs, 1);
	CHECK_STR(h.uverbs[0].ibdev.value, "rxe0");
	CHECK_INT(h.nissm, 1);
	CHECK_INT(h.issm[0].port_v, 1);
	const struct rd_module *m = rd_host_module(&h, "ib_core");
	CHECK(m && m->loaded);
	CHECK_INT(m->version.err, ENOENT); /* in-tree: no version file */
	CHECK_STR(m->sys_refcnt.value, "9");
	CHECK_STR(m->initstate.value, "live");
	CHECK_INT(rd_module_out_of_tree(m), 0);
	CHECK_INT(h.proc_modules.err, 0);
	rd_host_free(&h);
	rd_source_close(src);
}

RD_TEST(no_rdma_example)
{
	struct rd_source *src = open_example("no-rdma");
	struct rd_host h;
	rd_host_load(src, 0, &h);
	CHECK_INT(h.ndevices, 0);
	CHECK_INT(h.devices_err, ENOENT);
	CHECK_INT(h.devnodes_err, ENOENT);
	CHECK(rd_host_module(&h, "ib_core") == NULL);
	rd_host_free(&h);
	rd_source_close(src);
}

/* Names the kernel never gives are not devices, ports or counters: each output would show two of
 * them as one ("mx\x01" and "mx\x02" both as U+FFFD; ports "01" and "1.0" as port 1). */
RD_TEST(names_that_are_not_kernel_names)
{
	char cmd[4096], root[1024];
	rd_test_mkdtemp(root, sizeof root, "rd-names");
	snprintf(cmd, sizeof cmd,
		 "cd %s && d=sys/class/infiniband && mkdir -p $d/mlx5_0/ports/1/counters $d/mlx5_0/ports/01 "
		 "$d/mlx5_0/ports/1.0 $d/mlx5_0/ports/2 \"$d/$(printf 'mx\\001')\" \"$d/$(printf 'mx\\002')\" "
		 "\"$d/$(printf 'mx\\377')\" \"$d/mx [u@1] y\" && for p in 1 01 1.0 2; do echo '4: ACTIVE' > $d/mlx5_0/ports/$p/state; done "
		 "&& echo 1 > $d/mlx5_0/ports/1/counters/symbol_error && echo 2 > \"$d/mlx5_0/ports/1/counters/$(printf 'sym\\001')\" "
		 "&& echo 3 > \"$d/mlx5_0/ports/1/counters/$(printf 'sym\\002')\"",
		 root);
	CHECK(system(cmd) == 0);
	struct rd_source *src = NULL;
	char err[256];
	CHECK_INT(rd_source_open(root, &src, err, sizeof err), 0);
	struct rd_host h;
	rd_host_load(src, 0, &h);
	load_counters(src, &h);
	CHECK_INT(h.ndevices, 2);
	CHECK(rd_host_device(&h, "mlx5_0") != NULL);
	CHECK(rd_host_device(&h, "mx [u@1] y") != NULL);
	CHECK_INT(h.refused_devices.n, 3);
	const struct rd_device *d = rd_host_device(&h, "mlx5_0");
	CHECK_INT(d->nports, 2);
	CHECK_INT(d->ports[0].num, 1);
	CHECK_INT(d->ports[1].num, 2);
	CHECK_INT(d->ports[0].ncounters, 1);
	CHECK_STR(d->ports[0].counters[0].name, "symbol_error");
	rd_host_free(&h);
	rd_source_close(src);
	snprintf(cmd, sizeof cmd, "rm -rf %s", root);
	CHECK(system(cmd) == 0);
}

RD_TEST(mixed_states_example_missing_files)
{
	struct rd_source *src = open_example("mixed-states");
	struct rd_host h;
	rd_host_load(src, 0, &h);
	const struct rd_device *d = rd_host_device(&h, "mlx5_5");
	CHECK_INT(d->fw_ver.err, ENOENT);
	CHECK_STR(d->fw_ver.path, "/sys/class/infiniband/mlx5_5/fw_ver");
	CHECK_INT(d->ports[0].link_layer.err, ENOENT);
	CHECK(d->ports[0].is_ib); /* no link_layer: InfiniBand, as the kernel did before the file existed */
	d = rd_host_device(&h, "mlx4_0");
	CHECK_INT(d->nports, 2);
	CHECK_INT(d->ports[1].phys_v, RD_PHYS_POLLING);
	CHECK_STR(d->ports[1].rate_v.speed, "");
	d = rd_host_device(&h, "sw0");
	CHECK_INT(d->node_type_v, 2);
	CHECK_INT(d->ports[0].num, 0);
	rd_host_free(&h);
	rd_source_close(src);
}

/* The real H100 tree: 8x ConnectX-7 NDR IB + a BlueField-3 RoCE bond, values without newlines,
 * most files missing (no lid, gids, node_guid ...). */
RD_TEST(real_h100_gpud_tree)
{
	const char *real = rd_test_real_dir_or_skip();
	char cmd[2048], root[512];
	rd_test_mkdtemp(root, sizeof root, "rd-h100");
	snprintf(cmd, sizeof cmd, "mkdir -p %s/sys/class && cp -r '%s/gpud-h100-sys-class-infiniband' %s/sys/class/infiniband",
		 root, real, root);
	CHECK(system(cmd) == 0);
	struct rd_source *src = NULL;
	char err[256];
	CHECK_INT(rd_source_open(root, &src, err, sizeof err), 0);
	struct rd_host h;
	rd_host_load(src, 0, &h);
	load_counters(src, &h);
	CHECK_INT(h.ndevices, 9);
	for (size_t i = 0; i < 8; i++) {
		const struct rd_device *d = &h.devices[i];
		CHECK_STR(d->model, "ConnectX-7");
		CHECK_STR(d->fw_ver.value, "28.41.1000");
		CHECK_STR(d->board_id.value, "MT_0000000838");
		CHECK_INT(d->node_guid.err, ENOENT);
		CHECK_INT(d->ports[0].state_v, RD_PORT_ACTIVE);
		CHECK(d->ports[0].rate_ok && d->ports[0].rate_v.gbps == 400);
		CHECK(d->ports[0].is_ib);
		CHECK_INT(d->ports[0].lid.err, ENOENT);
		CHECK(d->ports[0].ncounters == 21);
	}
	const struct rd_device *bond = rd_host_device(&h, "mlx5_bond_0");
	CHECK_STR(bond->model, "BlueField-3");
	CHECK_STR(bond->fw_ver.value, "32.38.3056");
	CHECK(!bond->ports[0].is_ib);
	CHECK(bond->ports[0].rate_v.gbps == 200 && bond->ports[0].rate_v.width == 2);
	bool found = false;
	for (size_t i = 0; i < bond->ports[0].nhw_counters; i++)
		found |= strcmp(bond->ports[0].hw_counters[i].name, "roce_adp_retrans") == 0;
	CHECK(found);
	rd_host_free(&h);
	rd_source_close(src);
	snprintf(cmd, sizeof cmd, "rm -rf %s", root);
	CHECK(system(cmd) == 0);
}

/* The stack facts are derived once, in the model, from what the root holds (model/stack.h). */
RD_TEST(stack_facts_examples)
{
	static const struct {
		const char *root;
		enum rd_stack_kind installed;
		enum rd_stack_run running;
		enum rd_openibd openibd;
		bool ib_core_ofed;
	} want[] = {
		/* ofed_info says MLNX_OFED; openibd.service installed and enabled (sysinit.target.wants) */
		{"h100-ofed", RD_STACK_MLNX_OFED, RD_RUN_OFED, RD_OPENIBD_ENABLED, true},
		/* no package database and no ofed_info: not known, whatever the modules say */
		{"mixed-states", RD_STACK_UNKNOWN, RD_RUN_INBOX, RD_OPENIBD_UNKNOWN, false},
		{"rxe-qemu", RD_STACK_UNKNOWN, RD_RUN_INBOX, RD_OPENIBD_UNKNOWN, false},
		{"no-rdma", RD_STACK_UNKNOWN, RD_RUN_NONE, RD_OPENIBD_UNKNOWN, false},
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		struct rd_source *src = open_example(want[i].root);
		struct rd_host h;
		struct rd_system s;
		static const char *const none[] = {NULL};
		rd_host_load(src, 0, &h);
		rd_system_load(src, &h, none, &s);
		CHECK_STR(rd_stack_kind_name(s.stack.installed), rd_stack_kind_name(want[i].installed));
		CHECK_STR(rd_stack_run_name(s.stack.running), rd_stack_run_name(want[i].running));
		CHECK_STR(rd_openibd_name(s.stack.openibd), rd_openibd_name(want[i].openibd));
		CHECK_INT(s.stack.ib_core_ofed, want[i].ib_core_ofed);
		CHECK_INT(rd_stack_is_ofed(s.stack.installed), want[i].installed == RD_STACK_MLNX_OFED);
		if (want[i].installed == RD_STACK_MLNX_OFED)
			CHECK_STR(s.stack.version, "24.10-2.1.8.0");
		rd_system_free(&s);
		rd_host_free(&h);
		rd_source_close(src);
	}
}
