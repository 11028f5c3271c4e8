/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `rdma-doctor ibstat`: byte-identical to rdma-core's ibstat (infiniband-diags 44.0) on the same
 * sysfs — options, output, warnings, panics and exit codes — read through the source layer. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "model/umad.h"

static const char *const node_type_str[] = {"???", "CA", "Switch", "Router", "iWARP RNIC"};
static const char *const port_phy_state_str[] = {"No state change", "Sleep", "Polling", "Disabled",
						 "PortConfigurationTraining", "LinkUp",
						 "LinkErrorRecovery", "PhyTest"};

static const char *node_type(unsigned t)
{
	return t <= 4 ? node_type_str[t] : "???";
}

struct ibstat {
	struct rd_ctx *ctx;
	struct rd_umad umad;
	const char *prog;
	int debug;
};

static void ibwarn(struct ibstat *s, const char *func, const char *msg)
{
	fflush(s->ctx->out);
	fprintf(s->ctx->err, "ibwarn: [%d] %s: %s\n", (int)getpid(), func, msg);
}

static void flush_warnings(struct ibstat *s)
{
	if (!s->umad.warnings.len)
		return;
	struct rd_buf w = s->umad.warnings;
	memset(&s->umad.warnings, 0, sizeof s->umad.warnings);
	for (char *line = w.data; *line;) {
		char *nl = strchr(line, '\n');
		*nl = '\0';
		const char *colon = strchr(line, ':');
		char *func = rd_xstrndup(line, (size_t)(colon - line));
		ibwarn(s, func, colon + 2);
		free(func);
		line = nl + 1;
	}
	rd_buf_free(&w);
}

/* ibpanic: libibumad's pending warnings, the message, ": %m" with libibumad's errno; exit 255. */
static int ibpanic(struct ibstat *s, const char *msg)
{
	flush_warnings(s);
	fprintf(s->ctx->err, "ibpanic: [%d] main: %s: %s\n", (int)getpid(), msg,
		s->umad.last_err ? strerror(s->umad.last_err) : "Success");
	return 255;
}

static void trace(struct ibstat *s, const char *func, const char *msg)
{
	if (s->debug >= 2)
		ibwarn(s, func, msg);
}

static void print_port(struct ibstat *s, const struct rd_umad_ca *ca, int portnum, const char *pre)
{
	FILE *f = s->ctx->out;
	const struct rd_umad_port *p = &ca->ports[portnum];
	fprintf(f, "%sState: %s\n", pre, p->state >= 1 && p->state <= 4 ? rd_port_state_word((int)p->state) : "???");
	fprintf(f, "%sPhysical state: %s\n", pre, p->phys_state <= 7 ? port_phy_state_str[p->phys_state] : "???");
	if (rd_umad_port_is_fdr10(p)) /* rdma-core reads the rate again: the same 31 bytes */
		fprintf(f, "%sRate: %d (FDR10)\n", pre, (int)p->rate);
	else if (p->rate == 2)
		fprintf(f, "%sRate: 2.5\n", pre);
	else
		fprintf(f, "%sRate: %d\n", pre, (int)p->rate);
	fprintf(f, "%sBase lid: %d\n", pre, (int)p->base_lid);
	fprintf(f, "%sLMC: %d\n", pre, (int)p->lmc);
	fprintf(f, "%sSM lid: %d\n", pre, (int)p->sm_lid);
	fprintf(f, "%sCapability mask: 0x%08x\n", pre, p->capmask);
	fprintf(f, "%sPort GUID: 0x%016" PRIx64 "\n", pre, p->port_guid);
	fprintf(f, "%sLink layer: %s\n", pre, p->link_layer);
}

static void print_header(struct ibstat *s, const struct rd_umad_ca *ca)
{
	FILE *f = s->ctx->out;
	const char *nt = node_type(ca->node_type);
	fprintf(f, "%s '%s'\n", nt, ca->name);
	fprintf(f, "\t%s type: %s\n", nt, ca->ca_type);
	fprintf(f, "\tNumber of ports: %d\n", ca->numports);
	fprintf(f, "\tFirmware version: %s\n", ca->fw_ver);
	fprintf(f, "\tHardware version: %s\n", ca->hw_rev);
	fprintf(f, "\tNode GUID: 0x%016" PRIx64 "\n", ca->node_guid);
	fprintf(f, "\tSystem image GUID: 0x%016" PRIx64 "\n", ca->system_guid);
}

static int get_ca(struct ibstat *s, const char *name, struct rd_umad_ca *ca)
{
	char *m = rd_xasprintf("ca_name %s", name);
	trace(s, "umad_get_ca", m);
	free(m);
	int r = rd_umad_get_ca(&s->umad, name, ca);
	flush_warnings(s);
	if (r == 0) {
		m = rd_xasprintf("opened %s", name);
		trace(s, "umad_get_ca", m);
		free(m);
	}
	return r;
}

/* One CA in default, -s or single-port mode; returns 0 or the exit status of a panic. */
static int ca_stat(struct ibstat *s, const char *name, int port, bool short_format)
{
	struct rd_umad_ca ca;
	char *msg;
	if (get_ca(s, name, &ca) < 0)
		goto failed;
	if (short_format) {
		print_header(s, &ca);
		return 0;
	}
	if (port >= 0) {
		if (port > ca.numports || !ca.ports[port].present) {
			msg = rd_xasprintf("%s: '%s' has no port number %d - max (%d)", node_type(ca.node_type), name,
					   port, ca.numports);
			ibwarn(s, "ca_stat", msg);
			free(msg);
			goto failed;
		}
		fprintf(s->ctx->out, "%s: '%s'\n", node_type(ca.node_type), ca.name);
		fprintf(s->ctx->out, "Port %d:\n", port);
		print_port(s, &ca, port, "");
		return 0;
	}
	print_header(s, &ca);
	for (int p = 0; p <= ca.numports; p++) {
		if (!ca.ports[p].present)
			continue;
		fprintf(s->ctx->out, "\tPort %d:\n", p);
		print_port(s, &ca, p, "\t\t");
	}
	return 0;
failed:
	msg = rd_xasprintf("stat of IB device '%s' failed", name);
	int rc = ibpanic(s, msg);
	free(msg);
	return rc;
}

static void usage(struct ibstat *s)
{
	const char *p = s->prog;
	fprintf(s->ctx->err,
		"\nUsage: %s [options] <ca_name> [portnum]\n\nOptions:\n"
		"  --list_of_cas, -l       list all IB devices\n"
		"  --short, -s             short output\n"
		"  --port_list, -p         show port list\n"
		"  --config, -z <config>   use config file, default: /etc/infiniband-diags/ibdiag.conf\n"
		"  --verbose, -v           increase verbosity level\n"
		"  --debug, -d             raise debug level\n"
		"  --help, -h              help message\n"
		"  --version, -V           show version\n"
		"\nExamples:\n"
		"  %s -l       # list all IB devices\n"
		"  %s mthca0 2 # stat port 2 of 'mthca0'\n\n",
		p, p, p);
}

int rd_cmd_ibstat(struct rd_ctx *ctx, int argc, char **argv)
{
	static const struct option longopts[] = {
		{"list_of_cas", no_argument, NULL, 'l'}, {"short", no_argument, NULL, 's'},
		{"port_list", no_argument, NULL, 'p'},   {"config", required_argument, NULL, 'z'},
		{"verbose", no_argument, NULL, 'v'},     {"debug", no_argument, NULL, 'd'},
		{"help", no_argument, NULL, 'h'},        {"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	struct ibstat s = {.ctx = ctx, .prog = argv[0]};
	int list_only = 0, short_format = 0, list_ports = 0, c;
	optind = 0; /* full getopt re-initialisation */
	while ((c = getopt_long(argc, argv, "lspz:vdhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			list_only++;
			break;
		case 's':
			short_format++;
			break;
		case 'p':
			list_ports++;
			break;
		case 'z': /* ibdiag config file: holds nothing ibstat uses */
		case 'v':
			break;
		case 'd':
			s.debug++;
			break;
		case 'V':
			fprintf(ctx->err, "%s BUILD VERSION: 44.0\n", s.prog);
			return 0;
		default:
			usage(&s);
			return 2;
		}
	}
	argc -= optind;
	argv += optind;
	int dev_port = argc > 1 ? (int)strtol(argv[1], NULL, 0) : -1;

	struct rd_source *src;
	ctx->compat = true; /* like rdma-core: no read deadline */
	if (rd_ctx_open_source(ctx, &src) < 0)
		return 255;
	s.umad.src = src;
	trace(&s, "umad_init", "umad_init");
	struct rd_strv names = {0};
	int rc = 0;
	int r = rd_umad_list(&s.umad, &names);
	if (r < 0) {
		rc = ibpanic(&s, "can't list IB device names");
		goto out;
	}
	if (s.debug >= 2 && rd_umad_status_dir(&s.umad, NULL)) { /* listed: absent, or a directory */
		char *m = rd_xasprintf("return %zu cas", names.n);
		trace(&s, "umad_get_ca_device_list", m);
		free(m);
	}
	struct rd_strv sel = {0};
	if (argc >= 1) {
		if (!rd_strv_contains(&names, argv[0])) {
			char *m = rd_xasprintf("'%s' IB device can't be found", argv[0]);
			rc = ibpanic(&s, m);
			free(m);
			goto out;
		}
		rd_strv_push(&sel, argv[0]);
	} else {
		for (size_t i = 0; i < names.n; i++)
			rd_strv_push(&sel, names.v[i]);
	}

	for (size_t i = 0; i < sel.n && rc == 0; i++) {
		if (list_ports) {
			struct rd_umad_ca ca;
			char *m = rd_xasprintf("ca name %s max port guids 64", sel.v[i]);
			trace(&s, "umad_get_ca_portguids", m);
			free(m);
			if (get_ca(&s, sel.v[i], &ca) < 0) {
				rc = ibpanic(&s, "can't list ports");
				break;
			}
			m = rd_xasprintf("%s: %d ports", sel.v[i], ca.numports + 1);
			trace(&s, "umad_get_ca_portguids", m);
			free(m);
			for (int p = 0; p <= ca.numports; p++)
				if (ca.ports[p].present && ca.ports[p].port_guid)
					fprintf(ctx->out, "0x%016" PRIx64 "\n", ca.ports[p].port_guid);
		} else if (list_only) {
			fprintf(ctx->out, "%s\n", sel.v[i]);
		} else {
			rc = ca_stat(&s, sel.v[i], dev_port, short_format);
		}
	}
	rd_strv_free(&sel);
out:
	fflush(ctx->out);
	rd_strv_free(&names);
	rd_buf_free(&s.umad.warnings);
	rd_source_close(src);
	return rc;
}
