/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The operator's boot-time hooks that run a tool (model/bootset.h): which lines name mlnx_qos or
 * dcb, from which places (udev rules, systemd units and the script each one's ExecStart runs,
 * ifupdown and NetworkManager hooks, rc.local), and which interfaces a line sets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"
#include "model/bootset.h"
#include "util/util.h"

static const char *const tools[] = {"mlnx_qos", "dcb", NULL};

/* A line and an interface: whether the line sets it. */
RD_TEST(a_line_covers_the_interfaces_it_names_or_every_one)
{
	static const struct {
		const char *text, *ifname;
		bool covers;
	} cases[] = {
		{"mlnx_qos -i ens1f0 --trust dscp", "ens1f0", true},
		{"mlnx_qos -i ens1f0 --trust dscp", "ens1f1", false},
		{"mlnx_qos --interface=ens1f0 --pfc 0,0,0,1,0,0,0,0", "ens1f0", true},
		{"mlnx_qos --interface=ens1f0 --pfc 0,0,0,1,0,0,0,0", "ens1f1", false},
		{"mlnx_qos --interface ens1f1 --pfc 0,0,0,1,0,0,0,0", "ens1f1", true},
		{"dcb pfc set dev ens1f0 prio-pfc all:off 3:on", "ens1f0", true},
		{"dcb pfc set dev ens1f0 prio-pfc all:off 3:on", "ens2f0", false},
		{"mlnx_qos -i \"$IFACE\" --trust dscp", "ens1f0", true},     /* ifupdown's variable */
		{"mlnx_qos -i \"${n##*/}\" --trust dscp", "ens9", true},    /* a loop */
		{"/usr/bin/mlnx_qos -i $1 --trust dscp", "ens9", true},
		{"RUN+=\"/usr/bin/mlnx_qos -i %k --trust dscp\"", "ens9", true}, /* udev, no KERNEL match */
		{"ACTION==\"add\", KERNEL==\"ens1f*\", RUN+=\"/usr/bin/mlnx_qos -i %k --trust dscp\"", "ens1f1", true},
		{"ACTION==\"add\", KERNEL==\"ens1f*\", RUN+=\"/usr/bin/mlnx_qos -i %k --trust dscp\"", "ens2f0", false},
		{"ACTION==\"add\", KERNEL==\"ens1f0\", RUN+=\"/usr/bin/mlnx_qos -i %k\"", "ens1f0", true},
		{"setup_qos", "ens1f0", true},                               /* no interface named: whichever */
		{"for i in ens1f0 ens1f1; do mlnx_qos -i $i --trust dscp; done", "ens1f1", true},
		{"mlnx_qos -i ens1f0 -i ens1f1", "ens1f1", true},
		{"mlnx_qos -i ens1f0 -i ens1f1", "ens3", false},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char file[] = "f", *text = rd_xstrdup(cases[i].text);
		struct rd_bootset_line l = {.file = file, .line = 1, .text = text};
		bool got = rd_bootset_covers(&l, cases[i].ifname);
		free(text);
		if (got != cases[i].covers)
			rd_test_fail(__FILE__, __LINE__, "'%s' for %s: expected %s", cases[i].text, cases[i].ifname,
				     cases[i].covers ? "covered" : "not covered");
	}
}

static char root[192];

static void put(const char *rel, const char *text)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	for (char *s = strchr(path + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	fputs(text, f);
	fclose(f);
}

static void make_root(void)
{
	const char *t = getenv("TMPDIR");
	int n = snprintf(root, sizeof root, "%s/rd-bootset.XXXXXX", t && *t ? t : "/tmp");
	CHECK(n > 0 && (size_t)n < sizeof root);
	CHECK(mkdtemp(root) != NULL);
}

static void remove_root(void)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	CHECK_INT(system(cmd), 0);
}

static const struct rd_bootset_line *find(const struct rd_bootset *b, const char *file)
{
	for (size_t i = 0; i < b->n; i++)
		if (strcmp(b->v[i].file, file) == 0)
			return &b->v[i];
	return NULL;
}

/* Every place is read, through the source; comments, other tools' names, a package's programs and
 * the files beside the hooks' are not lines. */
RD_TEST(the_places_read_and_the_lines_kept)
{
	make_root();
	put("etc/udev/rules.d/90-qos.rules", "# RUN+=\"mlnx_qos -i %k\" commented out\n"
					     "ACTION==\"add\", KERNEL==\"ens1f0\", RUN+=\"/usr/bin/mlnx_qos -i %k --trust dscp\"\n");
	put("etc/udev/rules.d/README", "mlnx_qos in a file that is not a rules file\n");
	put("etc/systemd/system/qos.service", "[Service]\nType=oneshot\nExecStart=-/usr/local/sbin/qos.sh start\n");
	put("usr/local/sbin/qos.sh", "#!/bin/sh\n\t  dcb pfc set dev ens1f1 prio-pfc all:off 3:on\necho dcbnl is not the tool\n");
	put("etc/systemd/system/pkg.service", "[Service]\nExecStart=/usr/bin/mlnx_qos_wrapper\n");
	put("etc/systemd/system/up.service", "[Service]\nExecStart=/usr/local/../bin/x\n");
	put("etc/network/if-up.d/qos", "[ \"$IFACE\" = ens2f0 ] && mlnx_qos -i \"$IFACE\" --pfc 0,0,0,1,0,0,0,0\n");
	put("etc/network/if-up.d/qos.dpkg-old", "mlnx_qos -i old\n");
	put("etc/NetworkManager/dispatcher.d/50-qos", "mlnx_qos -i \"$1\" --trust dscp\n");
	put("etc/rc.local", "#!/bin/sh\nmlnx_qos -i ens3f0 --trust dscp\nexit 0\n");
	struct rd_source *src;
	char err[200];
	CHECK_INT(rd_source_open(root, &src, err, sizeof err), 0);
	struct rd_bootset b;
	rd_bootset_load(src, tools, &b);
	CHECK_INT((int)b.n, 5);
	CHECK(!b.truncated);
	const struct rd_bootset_line *l = find(&b, "/etc/udev/rules.d/90-qos.rules");
	CHECK(l && l->line == 2);
	l = find(&b, "/usr/local/sbin/qos.sh");
	CHECK(l && l->line == 2);
	CHECK_STR(l ? l->text : "", "dcb pfc set dev ens1f1 prio-pfc all:off 3:on"); /* leading blanks gone */
	CHECK(find(&b, "/etc/network/if-up.d/qos") != NULL);
	CHECK(find(&b, "/etc/NetworkManager/dispatcher.d/50-qos") != NULL);
	l = find(&b, "/etc/rc.local");
	CHECK(l && l->line == 2);
	CHECK(find(&b, "/etc/udev/rules.d/README") == NULL);
	CHECK(find(&b, "/etc/network/if-up.d/qos.dpkg-old") == NULL);
	CHECK(find(&b, "/etc/systemd/system/pkg.service") == NULL);
	rd_bootset_free(&b);
	rd_source_close(src);
	remove_root();
}

/* Lines and files are bounded, and the bound is said. */
RD_TEST(the_bounds)
{
	make_root();
	char name[64], text[64];
	for (int i = 0; i < RD_BOOTSET_MAX_LINES + 4; i++) {
		snprintf(name, sizeof name, "etc/network/if-up.d/q%02d", i);
		snprintf(text, sizeof text, "mlnx_qos -i ens%d\n", i);
		put(name, text);
	}
	struct rd_source *src;
	char err[200];
	CHECK_INT(rd_source_open(root, &src, err, sizeof err), 0);
	struct rd_bootset b;
	rd_bootset_load(src, tools, &b);
	CHECK_INT((int)b.n, RD_BOOTSET_MAX_LINES);
	CHECK(b.truncated);
	rd_bootset_free(&b);
	for (int i = RD_BOOTSET_MAX_LINES + 4; i < RD_BOOTSET_MAX_FILES + 8; i++) {
		snprintf(name, sizeof name, "etc/network/if-up.d/z%02d", i);
		put(name, "true\n");
	}
	rd_bootset_load(src, tools, &b);
	CHECK_INT((int)b.files, RD_BOOTSET_MAX_FILES);
	rd_bootset_free(&b);
	rd_source_close(src);
	remove_root();
}
