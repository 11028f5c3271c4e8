/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "render/out.h"

#define FORMAT_OPT "  -f, --format text|json  text for people (default) or one JSON document; --json, -j: json\n"
#define HELP_OPT "  -h, --help              this help\n"

const struct rd_cmd rd_cmds[] = {
	{"check", rd_cmd_check,
	 "[--format text|json|prometheus [--counters]] [--output FILE] [--policy FILE] [--only ID,...] [--skip ID,...] "
	 "[--no-color] [--probe [--probe-size BYTES]] [--mft] [--state-dir DIR] [--no-counters] [--env-from PID] "
	 "[--history-dir DIR [--history-days N]] [--policy-explain]",
	 "check this host's RDMA stack and print each finding with its evidence and fix; --probe adds\n"
	 "            `probe` as check probe.loopback (live host only; --probe-size BYTES)",
	 FORMAT_OPT
	 "      --policy FILE       the policy (default: /etc/rdma-doctor.conf inside the root, if present)\n"
	 "      --policy-explain    run no check: print each value the policy sets on this host (the root's\n"
	 "                          host name) with the FILE:LINE and [section] that set it\n"
	 "      --only ID,...       run only these checks (an id, or a prefix such as ports); repeatable\n"
	 "      --skip ID,...       do not run these checks; repeatable (an --only it empties is an error)\n"
	 "      --no-color          no colour (also NO_COLOR=1, TERM=dumb, or output that is not a terminal)\n"
	 "      --probe             add the verbs loopback probe as probe.loopback (live host only)\n"
	 "      --probe-size BYTES  the probe's memory region (with --probe; default 32 MiB)\n"
	 "      --mft               also run mlxlink, mlxconfig, flint, mlnx_qos, dcb and ethtool per device,\n"
	 "                          a timeout each (when installed; --root reads their captured output\n"
	 "                          whatever this says)\n"
	 "      --format prometheus the Prometheus text format, for node_exporter's textfile collector\n"
	 "      --counters          (the default) read the ports' counters/ and hw_counters/\n"
	 "      --no-counters       do not read the port counters (a firmware command each on some HCAs)\n"
	 "      --state-dir DIR     keep the counter samples there (default /var/lib/rdma-doctor on the\n"
	 "                          live host; under --root only when given)\n"
	 "      --env-from PID      judge NCCL's variables (NCCL_*, HOME) as that process was started with\n"
	 "                          them (/proc/PID/environ, read in the root), not this shell's\n"
	 "  -o, --output FILE       write to a temporary file beside FILE, then rename it over FILE\n"
	 "      --history-dir DIR   also keep this run's JSON report as DIR/HOST/TIME.json (fleet's repeat offenders)\n"
	 "                          (a report that cannot be kept is a line on stderr, the exit status unchanged)\n"
	 "      --history-days N    remove the host's reports there older than N days (default 8)\n" HELP_OPT,
	 "0 OK, 1 WARN, 2 FAIL, 3 UNKNOWN (a check could not tell, no RDMA hardware, a usage error, an unreadable\n"
	 "root or policy, output that cannot be written): the monitoring-plugin convention"},
	{"npd", rd_cmd_npd, "[check's options but --format, --output, --history-dir, --history-days and --policy-explain]",
	 "check as a node-problem-detector custom plugin: one line of at most 80 printable characters\n"
	 "            naming the worst finding", HELP_OPT,
	 "0 OK or WARN, 1 FAIL, 3 UNKNOWN, no RDMA hardware, a usage error or an unreadable root (NPD: Unknown)"},
	{"checks", rd_cmd_checks, "[--format text|json]", "list the checks: id, what each detects, where it looks",
	 FORMAT_OPT HELP_OPT, "0 listed, 3 a usage error or output that cannot be written"},
	{"stack", rd_cmd_stack, "[--format text|json]",
	 "inventory: kernel, RDMA modules (in-tree or out-of-tree), devices, firmware, ports", FORMAT_OPT HELP_OPT,
	 "0 shown, 3 a usage error, an unreadable root or output that cannot be written"},
	{"gids", rd_cmd_gids, "[--format text|json] [DEV...]", "the GID table as MLNX_OFED's show_gids prints it (JSON: with the index NCCL would use)", FORMAT_OPT HELP_OPT, "0 shown, 3 an unknown device, a usage error, an unreadable root or policy, or output that cannot be written"},
	{"topo", rd_cmd_topo, "[--format text|json]",
	 "the GPU and RDMA NIC PCIe matrix in nvidia-smi topo -m's notation (PIX, PXB, PHB, NODE, SYS),\n"
	 "            with NCCL's GPUDirect RDMA distance; from sysfs alone",
	 FORMAT_OPT HELP_OPT, "0 shown, 3 a usage error, an unreadable root or output that cannot be written"},
	{"fabric", rd_cmd_fabric,
	 "[DIR] [--format text|json|prometheus] [--output FILE] [--expect HOSTLIST] [--save FILE]\n"
	 "            [--against FILE] [--state-dir DIR] [--route HOST_A HOST_B | --pairs FILE...]",
	 "the InfiniBand subnet from infiniband-diags (iblinkinfo, ibnetdiscover, sminfo, ibqueryerrors),\n"
	 "            live or from a directory of their captured outputs: links below their siblings or what both\n"
	 "            ends can do, port error counters above their thresholds, duplicate GUIDs or LIDs, no subnet\n"
	 "            manager, expected hosts absent, cabling changed since a reference",
	 FORMAT_OPT
	 "      --format prometheus the Prometheus text format (rdma_doctor_fabric_*: the findings, each\n"
	 "                          cable's width, speed, state and worst finding, the error counters), for\n"
	 "                          node_exporter's textfile collector; not with --route or --pairs\n"
	 "  -o, --output FILE       write to a temporary file beside FILE, then rename it over FILE\n"
	 "      --expect HOSTLIST   hosts that should be in the fabric (Slurm syntax: node[01-24]); node\n"
	 "                          descriptions \"HOST DEVICE\" (Linux's default) name them\n"
	 "      --save FILE         write the cabling (each link's ends, width and speed) as a reference\n"
	 "      --against FILE      compare with a reference --save wrote: links missing, moved, added, changed\n"
	 "      --state-dir DIR     keep the ports' error counters there (_fabric.link-state) and judge their\n"
	 "                          rise since the sample of up to an hour before, not their totals\n"
	 "      --route HOST_A HOST_B\n"
	 "                          the route between two hosts hop by hop: each switch, its in and out port,\n"
	 "                          each cable's width and speed (live: ibtracert between their LIDs; DIR:\n"
	 "                          dump_fts's forwarding tables); rail i of one host to rail i of the other\n"
	 "      --pairs FILE        the results of pairs (rdma-doctor/pair/v1; again for more files), judged\n"
	 "                          as by pairs: the cable every slow pair's route crosses and the healthy\n"
	 "                          pairs' avoid (fabric.route.suspect); routes by dump_fts's tables\n" HELP_OPT
	 "  DIR holds the outputs by command: iblinkinfo-switches-only-l (iblinkinfo --switches-only -l),\n"
	 "  ibnetdiscover-p (ibnetdiscover -p), sminfo, ibqueryerrors, dump_fts (for --route and --pairs); as\n"
	 "  files at its top or in rdma-doctor/commands/.  Without DIR (and without --root) the tools are run\n"
	 "  here, a timeout each, when this host has an umad port (/dev/infiniband/umad*) or runs under\n"
	 "  ibsim-run (a simulated fabric).\n",
	 "0 no finding above OK (--route: every route had), 1 a WARN (a degraded link, a moved cable, a\n"
	 "suspect cable, errors on a cable ...), 2 a FAIL (no subnet manager, an expected host or a reference\n"
	 "link absent, a saturated error counter, a duplicate GUID or LID), 3 the fabric could not be read,\n"
	 "a route that could not be had, slow pairs whose routes single out no cable, a usage error, a\n"
	 "reference or results that cannot be read, output that cannot be written"},
	{"ibstat", rd_cmd_ibstat, "[-l | -p | -s] [CA [PORT]]", "the same output as rdma-core's ibstat", NULL,
	 "as rdma-core's ibstat (0; 255 when a CA or port is not found; 2 usage, -h)"},
	{"ibstatus", rd_cmd_ibstatus, "[DEV[:PORT]]...", "the same output as rdma-core's ibstatus", NULL,
	 "as rdma-core's ibstatus"},
	{"explain", rd_cmd_explain, "[--format text|json] [--policy FILE] [--] TEXT|FILE|-...",
	 "find known error messages in the text, files or standard input (-) and tell which cause is\n"
	 "            confirmed on this host, with its fix",
	 FORMAT_OPT
	 "      --policy FILE       the policy the checks use\n"
	 "      --file FILE         read FILE as a log, whatever its name looks like\n" HELP_OPT
	 "  An operand that names an existing regular file is read as a log; - reads standard input;\n"
	 "  one that looks like a path (a word with a /, or name.ext) and does not exist is an error;\n"
	 "  any other operand is the error text itself.  Text that starts with -, or a one-word text\n"
	 "  that looks like a path, goes after --.\n",
	 "0 nothing known, or every cause ruled out; 1 a cause is confirmed; 3 a cause cannot be told here,\n"
	 "a usage error, a file that cannot be read, an unreadable root or policy, output that cannot be written"},
	{"fix", rd_cmd_fix, "modules [--apply] [--policy FILE]",
	 "show (default) or write /etc/modules-load.d/rdma.conf and fix nvidia_peermem's order; with --apply\n"
	 "            on a live host also load the missing modules",
	 "      --apply             make the changes (default: print them as a diff, change nothing)\n"
	 "      --policy FILE       the policy (its [modules] required list)\n" HELP_OPT,
	 "0 done, or nothing to change; 1 a change could not be made (stderr says which); 3 a usage error,\n"
	 "an unreadable root or policy, output that cannot be written"},
	{"snapshot", rd_cmd_snapshot,
	 "-o FILE.tar.gz|FILE.tar|DIR [--force] [--no-counters] [--policy FILE] [--env-from PID] [--fabric]",
	 "collect everything the checks read, to check it elsewhere with --root (--force: replace an\n"
	 "            existing file; --no-counters: not the port counters, a firmware command each on some HCAs)",
	 "  -o, --output PATH       FILE.tar.gz / FILE.tgz, FILE.tar (not compressed), or a new (or empty) directory\n"
	 "      --force             replace an existing file\n"
	 "      --no-counters       not the port counters (read by default, as check does; --counters: the default)\n"
	 "      --policy FILE       capture the limits of this policy's services (default: the root's policy)\n"
	 "      --env-from PID      also that process's NCCL variables (NCCL_*, HOME; nothing else of its\n"
	 "                          environment): check the snapshot with the same --env-from PID\n"
	 "      --fabric            also the subnet as fabric reads it (iblinkinfo, ibnetdiscover, sminfo,\n"
	 "                          ibqueryerrors, dump_fts; run through this host's umad port, a timeout\n"
	 "                          each): `fabric SNAPSHOT` judges it elsewhere\n" HELP_OPT,
	 "0 written, 2 the snapshot could not be written (an existing file without --force, a full disk ...),\n"
	 "3 a usage error, an unreadable root, or --fabric without an umad port"},
	{"probe", rd_cmd_probe, "[--device DEV] [--port N] [--size BYTES] [--format text|json]",
	 "RDMA WRITE loopback through libibverbs (loaded at run time) on each Active port of this host:\n"
	 "            query port, GID, register memory, RC QP to itself, write, compare",
	 "      --device DEV        only this device\n"
	 "      --port N            only this port (1..255)\n"
	 "      --size BYTES        the memory region (bytes, or with K, M, G; default 32 MiB)\n" FORMAT_OPT HELP_OPT,
	 "0 PASS, 2 FAIL (no libibverbs, no device, no Active port, a failed step), 3 a usage error, --root,\n"
	 "output that cannot be written"},
	{"slurm", rd_cmd_slurm, "[--drain-on fail|warn] [--dry-run] [--node NAME] [check's --policy/--only/--skip]",
	 "HealthCheckProgram: run the checks, drain this node on FAIL (\"rdma-doctor: ...\"), resume it when\n"
	 "            healthy if we drained it; leaves anyone else's drain alone; UNKNOWN changes nothing",
	 "      --drain-on fail|warn  drain on a FAIL (default), or on a WARN too\n"
	 "  -n, --dry-run           print the scontrol command instead of running it\n"
	 "      --node NAME         the Slurm node (default: $SLURMD_NODENAME, else the short host name)\n"
	 "      --policy FILE, --only ID,..., --skip ID,...  as for check\n" HELP_OPT,
	 "0 done, or nothing to do; 1 scontrol is missing, failed, timed out or was killed; 3 a usage error\n"
	 "or an unreadable root or policy"},
	{"fleet", rd_cmd_fleet, "[--format text|json|html] [--expect HOSTLIST] [--max-age DURATION] [--fabric FILE] [--pairs FILE] [-o FILE] PATH... | --history [--days N] [--repeats N] [--format text|json|html|prometheus] [-o FILE] PATH...",
	 "drift across nodes from their `check --format json` reports: files, directories of reports, or -\n"
	 "            (standard input: concatenated reports, or pdsh/clush `host: line` output)",
	 "  -f, --format text|json|html|prometheus  text (default), one JSON document (rdma-doctor/fleet/v1;\n"
	 "                          rdma-doctor/fleet-history/v1 with --history), one HTML page, or Prometheus\n"
	 "                          series (with --history only)\n"
	 "  -j, --json              the same as --format json\n"
	 "      --expect HOSTLIST   the nodes that should report (Slurm syntax: node[01-24]); the others are missing\n"
	 "      --max-age DURATION  a report older than this (SECONDS, or with s, m, h, d) counts as missing\n"
	 "      --fabric FILE       `rdma-doctor fabric --format json`'s document: its verdict, findings and\n"
	 "                          (HTML) each switch's links join the summary and its exit status\n"
	 "      --pairs FILE        a judgement of `rdma-doctor pairs ... --format json`: its slow nodes\n"
	 "                          and slow pairs, as findings with hostlists, join them too\n"
	 "  -o, --output FILE       write to a temporary file beside FILE, then rename it over FILE\n"
	 "      --history           repeat offenders (lemons) over many timestamped reports per node: PATHs read\n"
	 "                          to 3 directory levels, *.json only; a FAIL recurring 2 times in 5 min, 3 in\n"
	 "                          1 h or N in the window is a lemon; --format prometheus: rdma_doctor_fleet_lemon_score\n"
	 "      --days N            --history: the window, N days before the newest report (default 7)\n"
	 "      --repeats N         --history: the window rule's N (default 3)\n" HELP_OPT,
	 "by rank: 2 a node or the --fabric FAILs; 3 an expected node missing, stale, unreadable or untrusted\n"
	 "reports (another host's, dated in the future, several for one host) or --fabric file, an UNKNOWN\n"
	 "node or fabric, a usage error, output that cannot be written; 1 drift (firmware or stack differing\n"
	 "within a board_id, MTU differing across RoCE ports) or a WARN (of a node or the fabric); 0 uniform\n"
	 "and healthy.  With --history: 1 a lemon; 3 bad input (and no\n"
	 "lemon), no report, a usage error; 0 no lemon"},
	{"pair", rd_cmd_pair, "serve [--port N] [--once] [--idle SECONDS] | HOST[:PORT] | --step SRV+CLI,... [--as NAME] [--size SIZE,...] [--duration MS] [--iters N] [--round N]",
	 "one end of an RDMA test between two hosts: per rail (each ACTIVE port, the i-th with the i-th),\n"
	 "            RDMA WRITE bandwidth to the server at each size and a ping-pong latency",
	 "      --port N            the TCP port of the control connection (default 18516)\n"
	 "      --once              serve: end after one client\n"
	 "      --idle SECONDS      serve: end when no client came for this long\n"
	 "      --device DEV        only this device's ports\n"
	 "      --size SIZE,...     message sizes (bytes, or with K, M; up to 4, at most 4M; default 64K,1M)\n"
	 "      --duration MS       each size's run (default 1000)\n"
	 "      --iters N           ping-pong round trips (default 1000)\n"
	 "      --round N           the round of `pairs` this measurement is part of (in the JSON)\n"
	 "      --step SRV+CLI,...  a task of the job step a pairs run starts: this node ($SLURMD_NODENAME) serves or\n"
	 "                          measures its part of the round (JSON on standard output; the server's\n"
	 "                          result on standard error), or idles\n"
	 "      --as NAME           with --step: this node's name (pdsh and clush put it for %h; \"%h\"\n"
	 "                          itself, left by clush over ssh: the short host name)\n" FORMAT_OPT HELP_OPT
	 "  The hosts trade each rail's queue pair over TCP, as NCCL does over its bootstrap socket; on\n"
	 "  RoCE the GID is the one NCCL picks (roce.gid).  Each measurement runs in a child process under\n"
	 "  a deadline (--timeout, else 10 s plus each rail's runs; serve: the client's, 1 h at most): a\n"
	 "  peer that stops answering or a provider that crashes is the result.  The JSON is\n"
	 "  rdma-doctor/pair/v1, which pairs --results reads.\n",
	 "0 every rail measured; 1 some rail not; 2 none (no connection, no rail, the peer gone); 3 a usage\n"
	 "error, --root, a port that cannot be served"},
	{"pairs", rd_cmd_pairs, "--nodes HOSTLIST --plan|--run [--rounds N] [--order ring|random|rack] [--topology FILE] [--launcher slurm|pdsh|clush] [--exec PATH] | --results FILE... [--drain [--dry-run]]",
	 "pairwise RDMA tests between hosts: plan rounds of disjoint pairs, or judge measured rounds (the\n"
	 "            node slow against every partner, the pair slow only together) and plan the next",
	 "      --nodes HOSTLIST    the nodes (Slurm syntax: node[001-128]); with --results, default: theirs\n"
	 "      --plan              print the rounds (with --results: the next round) instead of a judgement\n"
	 "      --run               measure: each round a Slurm job step (srun, one task a node, at most\n"
	 "                          110 nodes a step), each task `pair --step`; round 1 covers every node,\n"
	 "                          each later one is the judgement's next round; then the judgement\n"
	 "      --launcher slurm|pdsh|clush  with --run: how each round starts its tasks: a Slurm job step,\n"
	 "                          or one pdsh or clush run over the round's nodes (fan-out: all of\n"
	 "                          them; each told its name by %h); default: slurm when srun is in\n"
	 "                          PATH and Slurm answers, else give one; a step ends by --timeout\n"
	 "                          (default 10 min, 1 h at most), killed with what it started\n"
	 "      --exec PATH         with --run: the rdma-doctor the nodes run (default: this program's path)\n"
	 "      --drain             with --run or --results: drain each bad node with scontrol (its finding\n"
	 "                          as the reason) and resume each node the run cleared that pairs drained\n"
	 "  -n, --dry-run           with --drain: print the scontrol updates instead of running them\n"
	 "      --rounds N          rounds to plan or run (default 1; at most one fewer than the nodes)\n"
	 "      --order ring|random|rack  round 1 pairs neighbours in the given order (ring, the default),\n"
	 "                          a shuffled order (random, with --seed N, default 1), or nodes of\n"
	 "                          different racks (rack: the default with --topology)\n"
	 "      --topology FILE     Slurm's topology.conf: each switch line with Nodes= is a rack\n"
	 "      --results FILE      rdma-doctor/pair/v1 documents (one per measured pair; - reads standard\n"
	 "                          input); may be given several times\n" FORMAT_OPT HELP_OPT
	 "  A sample is slow when it is 4 scaled MADs below the run's median and under 80 % of it; a\n"
	 "  node's rail slow against 3 distinct partners and fast against none is bad (FAIL), a pair\n"
	 "  slow 3 times while both ends are fast with others is a bad link or path (WARN).\n",
	 "0 no finding and nothing left to measure; 1 a slow link, a run below line rate, or nodes still\n"
	 "suspect (the next round settles them); 2 a node is bad; 3 a usage error or results that cannot\n"
	 "be read"},
	{"watch", rd_cmd_watch, "[--policy FILE] [--output FILE] [--interval SECONDS] [--state-dir DIR] [--history-dir DIR [--history-days N]]\n"
	 "            [--slurm [--node NAME] [--drain-on fail|warn]]",
	 "keep checking: listen to the kernel log, netdev link changes and device events, re-run the\n"
	 "            checks each concerns, rewrite the Prometheus textfile; one line per change of a finding",
	 "      --policy FILE       as for check (re-read on SIGHUP)\n"
	 "  -o, --output FILE       write the Prometheus textfile there after each judgement (atomically, as\n"
	 "                          check --format prometheus --output does)\n"
	 "      --interval SECONDS  run every check this often (default 300), for what sends no event\n"
	 "      --state-dir DIR     as for check\n"
	 "      --history-dir DIR   keep the JSON report there as check does, at the start and after each\n"
	 "                          judgement that changed a finding, at most one a minute\n"
	 "      --history-days N    as for check (default 8)\n"
	 "      --slurm             drain or resume this Slurm node as slurm does, after each judgement that\n"
	 "                          changes what Slurm should be told; a port that is not ACTIVE drains by\n"
	 "                          the policy's [watch] rules (drain_down_after, drain_flaps, resume_stable)\n"
	 "      --node NAME         Slurm's node name (default: $SLURMD_NODENAME, else the short host name)\n"
	 "      --drain-on fail|warn  as for slurm\n" HELP_OPT
	 "  A netdev's link change re-runs ports.state, link.flaps and roce.*; kernel log lines (/dev/kmsg,\n"
	 "  read from the end) re-run kernel.log on those lines, 200 a second at most; a device added,\n"
	 "  removed or renamed, SIGHUP and the interval re-run every check.  SIGTERM or SIGINT end it.\n"
	 "  Under systemd (Type=notify) it sends READY=1 after the first judgement and WATCHDOG=1.\n",
	 "0 ended by SIGTERM or SIGINT; 3 a usage error, the host or policy could not be read at the start,\n"
	 "or the event sources could not be set up"},
	{"version", rd_cmd_version, "", "print the version", HELP_OPT, "0"},
	{"help", rd_cmd_help, "[COMMAND]", "print this help, or a command's", HELP_OPT, "0, 3 an unknown command"},
	{NULL, NULL, NULL, NULL, NULL, NULL},
};

static const char exit_table[] =
	"Exit status (every command but ibstat and ibstatus, which exit as rdma-core's do):\n"
	"  0  success; check: OK; explain: nothing known, or every cause ruled out; probe: PASS;\n"
	"     npd: OK or WARN; fleet: every expected node reported, uniform and healthy; fabric: no finding\n"
	"     above OK\n"
	"  1  check: WARN; explain: a cause is confirmed; fix: a change could not be made; slurm: scontrol\n"
	"     missing or failed; npd: FAIL; fleet: drift or a WARN (a node's or --fabric's), every\n"
	"     expected node reporting;\n"
	"     pairs: a slow link, a run below line rate, nodes still suspect; fabric: a WARN;\n"
	"     fleet --history: a lemon (a node whose FAILs recur)\n"
	"  2  check: FAIL; probe: FAIL; snapshot: the snapshot could not be written; fleet: a node FAILs,\n"
	"     or the --fabric document's verdict is FAIL; pairs: a node is bad; fabric: a FAIL\n"
	"  3  check: UNKNOWN (a check could not tell, or no RDMA hardware); explain: a cause cannot be told;\n"
	"     npd: UNKNOWN; fleet: an expected node missing, stale, unreadable or untrusted reports, a\n"
	"     --fabric file that cannot be read, a fabric UNKNOWN;\n"
	"     fabric: the fabric could not be read, a route not had, slow pairs singling out no cable;\n"
	"     and for every command: a usage error, a root, policy or input file that cannot be read, or\n"
	"     output that cannot be written\n";

void rd_print_usage(FILE *f, const char *prog)
{
	fprintf(f, "Usage: %s [--root DIR|SNAPSHOT.tar.gz] [--timeout SECONDS] COMMAND [ARGS]\n\n", prog);
	fprintf(f, "  --root DIR   read the host through DIR (or a snapshot archive) instead of /;\n"
		   "               nothing on the real host is read and no command is run\n"
		   "               (but `slurm` still calls scontrol: it acts on this machine's cluster).\n"
		   "               RDMA_DOCTOR_ROOT means the same (an empty value is an error).\n"
		   "  --timeout S  stop reading after S seconds (default 10; one file read may take 2 s);\n"
		   "               what was not read is reported UNKNOWN \"timed out\".  0: no deadline.\n"
		   "  Both may also follow the command; a command's --policy and --no-color may precede it.\n\nCommands:\n");
	for (const struct rd_cmd *c = rd_cmds; c->name; c++)
		if (*c->args)
			fprintf(f, "  %-9s %s\n            %s\n", c->name, c->args, c->help);
		else
			fprintf(f, "  %s\n            %s\n", c->name, c->help);
	fprintf(f, "\n'%s COMMAND --help' describes a command's options.\n\n%s", prog, exit_table);
}

/* Each line of text indented by two spaces (the table's continuation indent replaced). */
static void print_indented(FILE *f, const char *text)
{
	for (const char *p = text; *p;) {
		p += strspn(p, " ");
		size_t n = strcspn(p, "\n");
		fprintf(f, "  %.*s\n", (int)n, p);
		p += n;
		if (*p)
			p++;
	}
}

void rd_print_cmd_usage(FILE *f, const char *prog, const char *cmd)
{
	for (const struct rd_cmd *c = rd_cmds; c->name; c++) {
		if (strcmp(c->name, cmd) != 0)
			continue;
		fprintf(f, "Usage: %s [--root DIR|SNAPSHOT.tar.gz] [--timeout SECONDS] %s%s%s\n\n", prog, c->name,
			*c->args ? " " : "", c->args);
		print_indented(f, c->help);
		if (c->options)
			fprintf(f, "\nOptions:\n%s", c->options);
		fprintf(f, "\nExit status:\n");
		print_indented(f, c->exits);
		return;
	}
}

/* The one place that decides live or root: from the option as given, never from where it leads
 * ("--root /." or a link to / is a root: nothing is run, nothing outside it read). */
bool rd_ctx_is_root(const struct rd_ctx *ctx)
{
	return rd_load_is_root(ctx->root);
}

/* ibstat and ibstatus read with no deadline (compat), as rdma-core does. */
struct rd_load_opts rd_ctx_load_opts(const struct rd_ctx *ctx)
{
	return (struct rd_load_opts){.root = ctx->root, .timeout_s = ctx->compat ? 0 : ctx->timeout_s,
				     .parts = ctx->load_flags, .mft = ctx->mft, .env_pid = ctx->env_pid};
}

int rd_ctx_open_source(struct rd_ctx *ctx, struct rd_source **src)
{
	struct rd_load_opts o = rd_ctx_load_opts(ctx);
	char err[1024];
	int r = rd_load_open(&o, src, err, sizeof err);
	if (r < 0)
		rd_text_printf(ctx->err, ctx->ascii, "%s: %s\n", ctx->prog, err);
	return r;
}

int rd_ctx_load(struct rd_ctx *ctx, const char *policy_path, bool with_services, struct rd_loaded *l)
{
	struct rd_load_opts o = rd_ctx_load_opts(ctx);
	o.policy = policy_path;
	o.with_services = with_services;
	o.counters = rd_link_wants_counters(&ctx->link, ctx->root);
	int r = rd_load(&o, l);
	if (r < 0 || l->notice[0]) /* the reason may quote the policy file */
		rd_text_printf(ctx->err, ctx->ascii, "%s: %s\n", ctx->prog, r < 0 ? l->error : l->notice);
	return r < 0 ? -1 : 0;
}

int rd_env_from_opt(struct rd_ctx *ctx, const char *cmd, const char *value)
{
	char *end = NULL;
	errno = 0;
	long v = value[0] >= '0' && value[0] <= '9' ? strtol(value, &end, 10) : 0;
	if (errno || !end || *end || v <= 0 || v > 0x3fffffff) {
		rd_usage_error(ctx, cmd, "--env-from needs a process id, not '%s'", value);
		return -1;
	}
	ctx->env_pid = (int)v;
	return 0;
}

int rd_link_opt(struct rd_ctx *ctx, const char *opt, const char *value)
{
	if (strcmp(opt, "--no-counters") == 0) {
		ctx->link.no_counters = true;
		return 1;
	}
	if (strcmp(opt, "--state-dir") == 0) {
		ctx->link.state_dir = value;
		return 1;
	}
	return 0;
}

/* A command with no options: --help, or a usage error. */
static int no_options(struct rd_ctx *ctx, int argc, char **argv, int max_operands, const char **operand)
{
	static const struct option longopts[] = {RD_LONGOPT_HELP, {NULL, 0, NULL, 0}};
	struct rd_getopt g = {.argc = argc, .argv = argv, .longopts = longopts, .operands = max_operands > 0};
	int n = 0, st = -1;
	for (int c; (c = rd_opts_next(ctx, &g, &st)) != RD_OPT_END;)
		if (c == RD_OPT_OPERAND && n++ >= max_operands)
			st = rd_usage_error(ctx, argv[0], "unexpected argument '%s'", optarg);
		else if (c == RD_OPT_OPERAND)
			*operand = optarg;
	return st;
}

int rd_cmd_version(struct rd_ctx *ctx, int argc, char **argv)
{
	const char *unused = NULL;
	int r = argc > 0 ? no_options(ctx, argc, argv, 0, &unused) : -1;
	if (r >= 0)
		return r;
	fprintf(ctx->out, "rdma-doctor %s\n", RD_VERSION);
	return 0;
}

int rd_cmd_help(struct rd_ctx *ctx, int argc, char **argv)
{
	const char *cmd = NULL;
	int r = argc > 0 ? no_options(ctx, argc, argv, 1, &cmd) : -1;
	if (r >= 0)
		return r;
	if (!cmd) {
		rd_print_usage(ctx->out, ctx->prog);
		return 0;
	}
	for (const struct rd_cmd *c = rd_cmds; c->name; c++)
		if (strcmp(c->name, cmd) == 0) {
			rd_print_cmd_usage(ctx->out, ctx->prog, cmd);
			return 0;
		}
	rd_text_printf(ctx->err, ctx->ascii, "%s: help: unknown command '%s' (try '%s help')\n", ctx->prog, cmd, ctx->prog);
	return RD_EXIT_USAGE;
}
