/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Unit tests of the pieces the layout clean-up of issue 13 made into one function each: the
 * catalogue renderer (render/catalogue.c), the check-id list matcher (checks/runner.c), the
 * modules.* checks' fix lines (checks/findings.c), ibstatus's reads through model/umad.c, the one
 * PCI walk (model/system.c) of check and probe, rd_attr_value (model/host.h), CAP_IPC_LOCK,
 * the port-state words (model/parse-sysfs.c), the write loop (util), the stack renderer. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "checks/check.h"
#include "fix/fix.h"
#include "harness.h"
#include "model/parse.h"
#include "model/system.h"
#include "model/umad.h"
#include "render/catalogue.h"
#include "render/stack.h"

static char *catalogue(bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	rd_catalogue_render(f, json);
	fclose(f);
	return buf;
}

RD_TEST(catalogue_text_three_lines_a_check)
{
	char *t = catalogue(false);
	size_t lines = 0, checks = 0;
	for (const char *p = t; *p; p++)
		lines += *p == '\n';
	for (const struct rd_check *c = rd_checks; c->id; c++) {
		checks++;
		CHECK(strstr(t, c->id) != NULL);
	}
	CHECK(checks > 0);
	CHECK_INT(lines, 3 * checks);
	CHECK(strncmp(t, "stack.flavor ", 13) == 0);
	CHECK(strstr(t, "\n    detects: ") && strstr(t, "\n    reads:   "));
	free(t);
}

RD_TEST(catalogue_json_schema_and_every_id)
{
	char *j = catalogue(true);
	CHECK(strstr(j, "\"schema\": \"rdma-doctor/checks/v1\"") != NULL);
	for (const struct rd_check *c = rd_checks; c->id; c++) {
		char want[128];
		snprintf(want, sizeof want, "\"id\": \"%s\"", c->id);
		CHECK(strstr(j, want) != NULL);
	}
	free(j);
}

/* One matcher of check-id lists, for the runner and for check's option validation. */
RD_TEST(check_selected_ids_and_prefixes)
{
	CHECK(rd_check_selected("ports.rate", "ports.rate"));
	CHECK(rd_check_selected("ports.rate", "ports"));
	CHECK(rd_check_selected("ports.rate", "stack.flavor,ports"));
	CHECK(rd_check_selected("ports.rate", "stack,,ports.rate"));
	CHECK(!rd_check_selected("ports.rate", "port"));
	CHECK(!rd_check_selected("ports.rate", "ports."));
	CHECK(!rd_check_selected("ports.rate", "ports.rate.x"));
	CHECK(!rd_check_selected("ports.rate", "ports.ra"));
	CHECK(!rd_check_selected("ports.rate", ""));
	CHECK(!rd_check_selected("ports.rate", NULL));
	CHECK(!rd_check_selected("ports.rate", ","));
}

/* modules.persistent and modules.peermem_order print the same fix lines from a plan. */
RD_TEST(fix_plan_suggest_apply_then_by_hand)
{
	struct rd_finding f = {0};
	struct rd_fix_plan plan = {0};
	CHECK(!rd_fix_plan_suggest(&plan, &f));
	CHECK_INT(f.fix.n, 0);
	struct rd_file_change c = {.dir = "etc/modules-load.d", .name = "rdma.conf", .new = "ib_umad\nEOF\n"};
	plan.files = &c;
	plan.nfiles = 1;
	CHECK(rd_fix_plan_suggest(&plan, &f));
	CHECK_INT(f.fix.n, 6);
	CHECK_STR(f.fix.v[0], "rdma-doctor fix modules --apply    # or by hand, the same change:");
	CHECK_STR(f.fix.v[1], "mkdir -p /etc/modules-load.d");
	CHECK_STR(f.fix.v[2], "cat > /etc/modules-load.d/rdma.conf <<'RDMA_DOCTOR_EOF0'");
	CHECK_STR(f.fix.v[3], "ib_umad");
	CHECK_STR(f.fix.v[4], "EOF");
	CHECK_STR(f.fix.v[5], "RDMA_DOCTOR_EOF0");
	rd_strv_free(&f.fix);
}

/* ibstatus reads sys/class/infiniband through model/umad.c: [ -d ], `*`, cat. */
RD_TEST(umad_status_view_of_example)
{
	char path[1024], err[256], root[256];
	snprintf(path, sizeof path, "%s/../examples/h100-ofed", rd_test_dir());
	struct rd_umad u = {0};
	CHECK_INT(rd_source_open(path, &u.src, err, sizeof err), 0);
	CHECK(rd_umad_status_dir(&u, NULL));
	CHECK(rd_umad_status_dir(&u, "mlx5_0"));
	CHECK(!rd_umad_status_dir(&u, "nosuch"));
	struct rd_strv v = {0};
	rd_umad_status_glob(&u, NULL, &v);
	CHECK(v.n >= 9);
	CHECK_STR(v.v[0], "mlx5_0");
	rd_strv_free(&v);
	rd_umad_status_glob(&u, "mlx5_0", &v);
	CHECK_INT(v.n, 1);
	CHECK_STR(v.v[0], "1");
	rd_strv_free(&v);
	rd_umad_status_glob(&u, "nosuch", &v);
	CHECK_INT(v.n, 1);
	CHECK_STR(v.v[0], "*"); /* the pattern itself, as sh leaves it */
	rd_strv_free(&v);
	CHECK_STR(rd_umad_status_files[3], "state");
	struct rd_text t;
	CHECK_INT(rd_umad_status_read(&u, "mlx5_0", "1", "state", &t), 1);
	CHECK_STR(t.data, "4: ACTIVE\n");
	rd_text_free(&t);
	CHECK_INT(rd_umad_status_read(&u, "mlx5_0", "1", "nosuch", &t), 0);
	CHECK(t.data == NULL);
	CHECK_INT(rd_umad_status_read(&u, "mlx5_0", "1", "gids", &t), -EISDIR); /* cat of a directory */
	rd_source_close(u.src);
	/* an empty class directory: no device, "*" */
	rd_test_mkdtemp(root, sizeof root, "rd-layout");
	snprintf(path, sizeof path, "mkdir -p %s/sys/class/infiniband", root);
	CHECK(system(path) == 0);
	CHECK_INT(rd_source_open(root, &u.src, err, sizeof err), 0);
	CHECK(rd_umad_status_dir(&u, NULL));
	rd_umad_status_glob(&u, NULL, &v);
	CHECK_INT(v.n, 1);
	CHECK_STR(v.v[0], "*");
	rd_strv_free(&v);
	rd_source_close(u.src);
	snprintf(path, sizeof path, "rm -rf %s", root);
	CHECK(system(path) == 0);
}

/* check (rd_host_has_rdma_hardware) and probe (a host without devices) share one PCI walk and one
 * rule for "a Mellanox/NVIDIA network controller". */
RD_TEST(pci_walk_and_mellanox_nic_rule)
{
	char cmd[1024], err[256], root[256];
	rd_test_mkdtemp(root, sizeof root, "rd-layout");
	snprintf(cmd, sizeof cmd,
		 "set -e; cd %s; d=sys/bus/pci/devices; mkdir -p $d/0000:0c:00.0 $d/0000:0d:00.0 $d/0000:0e:00.0;"
		 "printf '0x15b3\\n' > $d/0000:0c:00.0/vendor; printf '0x0c0600\\n' > $d/0000:0c:00.0/class;"
		 "printf '0x15b3\\n' > $d/0000:0d:00.0/vendor; printf '0x020000\\n' > $d/0000:0d:00.0/class;"
		 "printf '0x101e\\n' > $d/0000:0d:00.0/device;"
		 "printf '0x8086\\n' > $d/0000:0e:00.0/vendor; printf '0x020000\\n' > $d/0000:0e:00.0/class",
		 root);
	CHECK(system(cmd) == 0);
	struct rd_source *src = NULL;
	CHECK_INT(rd_source_open(root, &src, err, sizeof err), 0);
	struct rd_system sys = {0};
	rd_system_load_pci(src, &sys);
	CHECK_INT(sys.pci_err, 0);
	CHECK_INT(sys.npci, 2); /* the Intel function is not kept */
	CHECK_STR(sys.pci[0].addr, "0000:0c:00.0");
	CHECK(!rd_pci_is_mellanox_nic(&sys.pci[0])); /* class 0x0c: not a network controller */
	CHECK_STR(sys.pci[1].addr, "0000:0d:00.0");
	CHECK_INT(sys.pci[1].device, 0x101e);
	CHECK(rd_pci_is_mellanox_nic(&sys.pci[1]));
	struct rd_host h = {0};
	CHECK(rd_host_has_rdma_hardware(&h, &sys));
	rd_system_free(&sys);
	rd_source_close(src);
	snprintf(cmd, sizeof cmd, "rm -rf %s", root);
	CHECK(system(cmd) == 0);
}

/* One rd_attr_value for the renderers (was val() in three files): the value only when it was read. */
RD_TEST(attr_value_only_when_read)
{
	struct rd_attr ok = {.path = "/p", .value = "28.41.1000"};
	struct rd_attr missing = {.path = "/p", .err = ENOENT};
	struct rd_attr malformed = {.path = "/p", .value = "garbage", .err = RD_EPARSE};
	struct rd_attr empty = {.path = "/p", .value = ""};
	CHECK_STR(rd_attr_value(&ok), "28.41.1000");
	CHECK(rd_attr_value(&missing) == NULL);
	CHECK(rd_attr_value(&malformed) == NULL);
	CHECK_STR(rd_attr_value(&empty), "");
}

/* memlock.limit and the probe read CAP_IPC_LOCK (bit 14 of CapEff) through one function. */
RD_TEST(capeff_ipc_lock_bit)
{
	uint64_t m;
	CHECK_INT(rd_parse_capeff("Name:\tx\nCapEff:\t0000000000004000\n", &m), 0);
	CHECK(rd_capeff_ipc_lock(m));
	CHECK_INT(rd_parse_capeff("CapEff:\t000001ffffffbfff\n", &m), 0);
	CHECK(!rd_capeff_ipc_lock(m)); /* everything but CAP_IPC_LOCK */
	CHECK(rd_capeff_ipc_lock(UINT64_MAX));
	CHECK(!rd_capeff_ipc_lock(0));
}

/* The port-state words live beside the kernel's names (model/parse.c); ibstat and the inventory
 * share them. */
RD_TEST(port_state_words)
{
	CHECK_STR(rd_port_state_word(RD_PORT_DOWN), "Down");
	CHECK_STR(rd_port_state_word(RD_PORT_INIT), "Initializing");
	CHECK_STR(rd_port_state_word(RD_PORT_ARMED), "Armed");
	CHECK_STR(rd_port_state_word(RD_PORT_ACTIVE), "Active");
	CHECK_STR(rd_port_state_word(RD_PORT_ACTIVE_DEFER), "ActiveDefer");
	CHECK_STR(rd_port_state_word(-1), "unknown");
	CHECK_STR(rd_port_state_word(6), "unknown");
	CHECK_STR(rd_port_state_name(RD_PORT_ACTIVE), "ACTIVE");
}

/* One write loop (rd_write_all) for main's stdout sink, the probe child, fix's atomic writes and
 * snapshot directories. */
RD_TEST(write_all_whole_or_errno)
{
	int p[2];
	CHECK(pipe(p) == 0);
	CHECK_INT(rd_write_all(p[1], "abc\n", 4), 0);
	CHECK_INT(rd_write_all(p[1], NULL, 0), 0);
	char buf[8] = {0};
	CHECK_INT(read(p[0], buf, sizeof buf), 4);
	CHECK_STR(buf, "abc\n");
	close(p[0]);
	signal(SIGPIPE, SIG_IGN);
	CHECK_INT(rd_write_all(p[1], "x", 1), -EPIPE);
	close(p[1]);
	CHECK_INT(rd_write_all(p[1], "x", 1), -EBADF);
	int full = open("/dev/full", O_WRONLY);
	if (full >= 0) {
		CHECK_INT(rd_write_all(full, "x", 1), -ENOSPC);
		close(full);
	}
}

/* `stack`'s renderer is in render/stack.c; the command only loads the models. */
RD_TEST(stack_render_json_root)
{
	char path[1024], err[256];
	snprintf(path, sizeof path, "%s/../examples/h100-ofed", rd_test_dir());
	struct rd_source *src = NULL;
	CHECK_INT(rd_source_open(path, &src, err, sizeof err), 0);
	struct rd_host h;
	struct rd_system sys;
	rd_host_load(src, 0, &h);
	static const char *const none[] = {NULL};
	rd_system_load(src, &h, none, &sys);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	rd_stack_render(f, true, &h, &sys, "/r", NULL);
	fclose(f);
	CHECK(strstr(buf, "\"schema\": \"rdma-doctor/stack/v1\"") != NULL);
	CHECK(strstr(buf, "\"root\": \"/r\"") != NULL);
	CHECK(strstr(buf, "\"mlx5_0\"") != NULL);
	free(buf);
	f = open_memstream(&buf, &len);
	rd_stack_render(f, false, &h, &sys, NULL, NULL);
	fclose(f);
	CHECK(strstr(buf, "Root:") == NULL); /* the live host shows no root */
	CHECK(strstr(buf, "\nRDMA devices:\n") != NULL);
	free(buf);
	rd_system_free(&sys);
	rd_host_free(&h);
	rd_source_close(src);
}
