/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* memlock.limit: RDMA registers (pins) memory; RLIMIT_MEMLOCK must not stop it.  Looks at this
 * process, the running processes and unit files of the named services, systemd's default, and
 * limits.conf. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/catalogue.h"
#include "model/parse.h"

/* The fix that makes LimitMEMLOCK=infinity apply to service, given the file that sets the
 * limit today (set_in, or NULL): an admin file under /etc is edited in place; otherwise a drop-in
 * in /etc is added whose name sorts after set_in's (drop-ins apply in file-name order across
 * directories, the last one wins). */
static void service_fix(struct rd_finding *f, const char *service, const char *set_in)
{
	if (set_in && rd_str_has_prefix(set_in, "/etc/systemd/system/") && !strpbrk(set_in, " '\"$`\\;&|<>*?")) {
		rd_fix_add(f, "sed -i 's/^[[:space:]]*LimitMEMLOCK=.*/LimitMEMLOCK=infinity/' %s", set_in);
	} else {
		const char *base = set_in && strstr(set_in, ".service.d/") ? strrchr(set_in, '/') + 1 : NULL;
		const char *name = base && strcmp(base, "memlock.conf") >= 0 ? "zz-memlock.conf" : "memlock.conf";
		rd_fix_add(f, "mkdir -p /etc/systemd/system/%s.service.d", service);
		rd_fix_add(f, "printf '[Service]\\nLimitMEMLOCK=infinity\\n' > /etc/systemd/system/%s.service.d/%s", service,
			   name);
	}
	rd_fix_add(f, "systemctl daemon-reload && systemctl restart %s", service);
}

static struct rd_unit_limit *unit_of(const struct rd_system *s, const char *service)
{
	for (size_t i = 0; i < s->nunits; i++)
		if (strcmp(s->units[i].service, service) == 0 && s->units[i].unit_path)
			return &s->units[i];
	return NULL;
}

void rd_check_memlock_limit(struct rd_check_ctx *ctx)
{
	const struct rd_system *s = ctx->sys;
	uint64_t need = ctx->policy->memlock_min;
	char a[32], b[32];
	size_t services_ok = 0;
	/* units whose problem a running process's finding already reports (one problem, one finding) */
	bool *said = rd_xcalloc(s->nunits + 1, sizeof *said);

	for (size_t i = 0; i < s->nprocs; i++) {
		const struct rd_proc_limits *l = &s->procs[i];
		char subj[96];
		snprintf(subj, sizeof subj, "%s (pid %d)", l->comm, l->pid);
		if (!l->ok) {
			struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, subj, "cannot read the limits of %s", subj);
			rd_evidence_attr(f, &l->limits);
		} else if (l->soft < need) {
			const struct rd_unit_limit *u = unit_of(s, l->comm);
			if (u)
				said[u - s->units] = true;
			/* where the limit comes from: the unit's LimitMEMLOCK=, systemd's default, or (the
			 * unit already asks for enough) a process started before the change */
			char cause[512] = "";
			const char *set_in = NULL;
			if (u && u->value && u->value_ok && u->bytes < need) {
				snprintf(cause, sizeof cause, ", set by LimitMEMLOCK=%s in %s", u->value, u->set_in);
				set_in = u->set_in;
			} else if (u && u->value && u->value_ok) {
				snprintf(cause, sizeof cause, " although %s now sets LimitMEMLOCK=%s (not applied until %s restarts)",
					 u->set_in, u->value, l->comm);
			} else if (u && !u->value && s->default_memlock) {
				snprintf(cause, sizeof cause, ", from DefaultLimitMEMLOCK=%s in %s (%s.service sets no LimitMEMLOCK)",
					 s->default_memlock, s->default_memlock_in, l->comm);
			} else if (u && !u->value) {
				snprintf(cause, sizeof cause, ", systemd's default (%s.service sets no LimitMEMLOCK)", l->comm);
			}
			struct rd_finding *f = rd_finding_add(
				ctx, RD_FAIL, subj,
				"%s runs with a memlock limit of %s (need %s)%s: every job it starts inherits it and NCCL "
				"fails with \"failed to set up RDMA queue pair: Cannot allocate memory\"",
				subj, rd_size_words(l->soft, a, sizeof a), rd_size_words(need, b, sizeof b), cause);
			rd_evidence_add(f, l->limits.path, "Max locked memory %s %s", rd_size_words(l->soft, a, sizeof a),
					rd_size_words(l->hard, b, sizeof b));
			if (u && u->value)
				rd_evidence_add(f, u->set_in, "LimitMEMLOCK=%s", u->value);
			else if (u) {
				rd_evidence_add(f, u->unit_path, "no LimitMEMLOCK=");
				if (s->default_memlock)
					rd_evidence_add(f, s->default_memlock_in, "DefaultLimitMEMLOCK=%s", s->default_memlock);
			}
			if (u && u->value && u->value_ok && u->bytes >= need)
				rd_fix_add(f, "systemctl daemon-reload && systemctl restart %s    # applies LimitMEMLOCK=%s", l->comm, u->value);
			else
				service_fix(f, l->comm, set_in);
		} else {
			services_ok++;
		}
	}
	for (size_t i = 0; i < s->nunits; i++) {
		const struct rd_unit_limit *u = &s->units[i];
		if (!u->unit_path || said[i])
			continue;
		if (u->value && u->value_ok && u->bytes < need) {
			struct rd_finding *f = rd_finding_add(ctx, RD_FAIL, u->service,
							      "%s.service sets LimitMEMLOCK=%s (need %s): jobs it starts cannot "
							      "register enough memory for RDMA",
							      u->service, u->value, rd_size_words(need, b, sizeof b));
			rd_evidence_add(f, u->set_in, "LimitMEMLOCK=%s", u->value);
			service_fix(f, u->service, u->set_in);
		} else if (!u->value && need == UINT64_MAX) {
			const char *def = s->default_memlock;
			uint64_t dv = 0;
			bool def_ok = def && rd_parse_systemd_size(def, &dv) == 0;
			if (def_ok && dv >= need)
				continue;
			struct rd_finding *f = rd_finding_add(
				ctx, RD_WARN, u->service,
				"%s.service sets no LimitMEMLOCK, so it gets systemd's default (%s): RDMA jobs it starts "
				"may fail to register memory",
				u->service, def ? def : "8M on current systemd, 64K on older ones");
			rd_evidence_add(f, u->unit_path, "no LimitMEMLOCK=");
			if (def)
				rd_evidence_add(f, s->default_memlock_in, "DefaultLimitMEMLOCK=%s", def);
			service_fix(f, u->service, NULL);
		}
	}
	free(said);
	/* systemd's default for every service */
	uint64_t dv;
	if (s->default_memlock && rd_parse_systemd_size(s->default_memlock, &dv) == 0 && dv < need) {
		struct rd_finding *f = rd_finding_add(ctx, RD_WARN, "systemd",
						      "DefaultLimitMEMLOCK=%s: services without their own LimitMEMLOCK get it",
						      s->default_memlock);
		rd_evidence_add(f, s->default_memlock_in, "DefaultLimitMEMLOCK=%s", s->default_memlock);
		rd_fix_add(f, "set DefaultLimitMEMLOCK=infinity in /etc/systemd/system.conf, then systemctl daemon-reexec");
	}
	/* limits.conf for logins (pam_limits) */
	uint64_t soft = 0, hard = 0;
	if (rd_attr_ok(&s->limits_conf) && rd_limits_conf_memlock(s->limits_conf.value, NULL, &soft, &hard) == 1 &&
	    soft && soft < need) {
		struct rd_finding *f = rd_finding_add(ctx, RD_WARN, "limits.conf",
						      "limits.conf gives logins a memlock limit of %s",
						      rd_size_words(soft, a, sizeof a));
		rd_evidence_add(f, s->limits_conf.path, "memlock soft %s", rd_size_words(soft, a, sizeof a));
		rd_fix_add(f, "in /etc/security/limits.conf: '* soft memlock unlimited' and '* hard memlock unlimited'");
	}
	/* this process (the shell or job the doctor runs in, or the snapshot collector) */
	if (!s->self.ok) {
		struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, "this process", "cannot read this process's limits");
		rd_evidence_attr(f, &s->self.limits);
	} else if (s->self.soft < need) {
		bool cap = s->capeff_ok && rd_capeff_ipc_lock(s->capeff);
		struct rd_finding *f;
		if (cap)
			f = rd_finding_add(ctx, RD_OK, "this process", "memlock limit is %s but CAP_IPC_LOCK is held, which lifts it",
					   rd_size_words(s->self.soft, a, sizeof a));
		else /* what this shell (a Slurm prolog: slurmd's child) starts gets this limit: a real
		      * ibv_reg_mr fails with ENOMEM beyond it (tests/vm: 64 KiB, 32 MiB region) */
			f = rd_finding_add(ctx, RD_FAIL, "this process",
					   "memlock limit of this %s is %s (need %s): RDMA programs started here fail to "
					   "register memory (\"Cannot allocate memory\")",
					   ctx->live ? "shell" : "snapshot's collector", rd_size_words(s->self.soft, a, sizeof a),
					   rd_size_words(need, b, sizeof b));
		rd_evidence_add(f, s->self.limits.path, "Max locked memory %s %s", rd_size_words(s->self.soft, a, sizeof a),
				rd_size_words(s->self.hard, b, sizeof b));
		if (s->capeff_ok)
			rd_evidence_add(f, s->self_status.path, "CapEff %016llx (CAP_IPC_LOCK %s)",
					(unsigned long long)s->capeff, cap ? "held" : "not held");
		if (!cap) {
			rd_fix_add(f, "ulimit -l unlimited    # in the job's shell (needs the hard limit raised too)");
			rd_fix_add(f, "containers: securityContext.capabilities.add: [\"IPC_LOCK\"] (Kubernetes) or --cap-add=IPC_LOCK --ulimit memlock=-1 (docker)");
		}
	}
	if (rd_check_quiet(ctx)) {
		struct rd_finding *f = rd_finding_add(ctx, RD_OK, "host", "memlock limits are %s", rd_size_words(need, b, sizeof b));
		rd_evidence_add(f, s->self.limits.path, "Max locked memory %s", rd_size_words(s->self.soft, a, sizeof a));
		(void)services_ok;
	}
}
