# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The verdict audit's rules: input one `check --format json` report, output one line per
# contradiction (two statements about the same fact that cannot both be true), none when the
# report is consistent.  Each rule names the fact it is about.  tests/audit/run.sh applies them.
def ofed: IN("OFED", "MLNX_OFED", "DOCA-OFED");
def bad: .status == "FAIL" or .status == "WARN";
def word($m): "(^|[^A-Za-z0-9_])" + $m;
def isactive: .state == "ACTIVE" and .phys_state == "LinkUp";

. as $r
| ($r.stack.installed) as $inst
| ($r.stack.running) as $run
| [$r.devices[]? | .name as $d | .ports[]? | {id: "\($d) port \(.port)", state, phys_state}] as $ports
| ([$ports[] | select(isactive)] | length) as $nactive
| (
	# ---- the installed stack: one answer, the report's stack.installed ----
	($r.findings[] | select(.check == "stack.flavor") | .message
		| capture("^(?<k>[A-Za-z_-]+)( [^ ]+)? installed, (?<run>[A-Za-z]+) modules loaded")
		| (select(.k != $inst) | "stack installed: stack.flavor says \(.k), the report's stack.installed is \($inst)"),
		  (select(.run != $run) | "stack running: stack.flavor says \(.run) modules, the report's stack.running is \($run)")),
	($r.findings[] | select(.message | test("^(?<k>[A-Za-z_-]+)( [0-9][^ ]*)? is installed"))
		| (.message | capture("^(?<k>[A-Za-z_-]+)( [0-9][^ ]*)? is installed").k) as $k
		| select($k != $inst or $k == "unknown")
		| "stack installed: \(.check) says \"\($k) is installed\", the report's stack.installed is \($inst)"),
	(select($inst | ofed) | $r.findings[] | select(.message | test("not an OFED install|no OFED install"))
		| "stack installed: \(.check) says \"\(.message)\" while \($inst) is installed"),
	(select($inst == "inbox") | $r.findings[] | select(.message | test("(MLNX_OFED|DOCA-OFED|OFED)( [^ ]+)? is installed"))
		| "stack installed: \(.check) says OFED is installed while the report says inbox"),
	(select($inst == "unknown") | $r.findings[] | select(bad and (.message | test("is installed")))
		| "stack installed: \(.check) \(.status)s on an installed stack nobody knows: \(.message)"),
	# ---- the running stack: stack.mixed agrees with stack.running ----
	($r.findings[] | select(.check == "stack.mixed")
		| (select(.message | test("modules are in-tree")) | select($run != "inbox")
			| "stack running: stack.mixed says in-tree, stack.running is \($run)"),
		  (select(.message | test("modules are OFED")) | select($run != "OFED")
			| "stack running: stack.mixed says OFED, stack.running is \($run)"),
		  (select(.message | test("loaded together")) | select($run != "mixed")
			| "stack running: stack.mixed says mixed, stack.running is \($run)")),
	# ---- openibd: installed or not, enabled or not ----
	(([$r.findings[] | select(.message | test("openibd is not installed|without its openibd"))] | length) as $absent
		| select($absent > 0) | $r.findings[]
		| select(.message | test("openibd(\\.service)? is enabled|openibd is installed but"))
		| "openibd: one finding says it is not installed, \(.check) says \"\(.message)\""),
	(select($r.stack.openibd != null) | $r.findings[]
		| (select(.message | test("openibd is not installed|without its openibd")) | select($r.stack.openibd | IN("absent", "unknown") | not)
			| "openibd: \(.check) says not installed, stack.openibd is \($r.stack.openibd)"),
		  (select(.message | test("openibd(\\.service)? is enabled")) | select($r.stack.openibd != "enabled")
			| "openibd: \(.check) says enabled, stack.openibd is \($r.stack.openibd)")),
	# ---- modules: loaded or not, persistent or not ----
	($r.modules[]? | .name as $m
		| (select(.loaded == false) | $r.findings[]
			| select(.message | test(word($m) + " (is )?loaded( |$|:|,)"))
			| "module \($m): \(.check) says loaded, modules[] says not loaded"),
		  (select(.loaded == true) | $r.findings[]
			| select(.message | test(word($m) + " (is )?not loaded"))
			| "module \($m): \(.check) says not loaded, modules[] says loaded")),
	($r.findings[] | select(.check == "modules.loaded" and .status == "OK")
		| (.message | capture("^all (?<n>[0-9]+) required modules loaded") | .n | tonumber) as $n
		| $r.modules[:$n][] | select(.loaded != true)
		| "module \(.name): modules.loaded says all \($n) loaded, modules[] says not loaded"),
	($r.findings[] | select(.check == "modules.persistent" and .status == "OK")
		| (.message | capture("^all (?<n>[0-9]+) required modules are listed") | .n | tonumber) as $n
		| $r.modules[:$n][] | select(.persistent != true)
		| "module \(.name): modules.persistent says listed, modules[] says not persistent"),
	# ---- ports: one state per port, one count of Active ports ----
	($r.findings[] | select(.check == "ports.state" and bad) | .subject as $s
		| $ports[] | select(.id == $s and isactive)
		| "port \($s): ports.state says it is not usable, devices[] says ACTIVE/LinkUp"),
	($r.findings[] | select(.check == "ports.state" and .status == "OK") | .message
		| (capture("^all (?<n>[0-9]+) ports Active/LinkUp(?<rest>.*)$") // capture("^the (?<n>only) port is Active/LinkUp(?<rest>.*)$"))
		| ((if .n == "only" then 1 else (.n | tonumber) end) as $n
		   | (.rest | capture("\\((?<t>[0-9]+) ports, (?<i>[0-9]+) ignored") // {t: "\($ports | length)", i: "0"}) as $ig
		   | (select(($ig.t | tonumber) != ($ports | length))
			| "ports: ports.state counts \($ig.t) ports, devices[] has \($ports | length)"),
		     (select($n + ($ig.i | tonumber) != ($ig.t | tonumber) or $n > $nactive)
			| "ports: ports.state says \($n) of \($ig.t) ports Active (\($ig.i) ignored), devices[] has \($nactive) Active"))),
	($r.findings[] | select(.check == "ports.state" and bad and .subject == "host") | .message
		| capture("^(?<n>[0-9]+) ports Active/LinkUp") | (.n | tonumber) as $n
		| select($n > $nactive) | "ports: ports.state counts \($n) Active, devices[] has \($nactive)"),
	($r.findings[] | select(.check == "ports.rate") | .message
		| capture("^(?<n>[0-9]+) active ports?, none slower") | (.n | tonumber) as $n
		| select($n > $nactive) | "ports: ports.rate counts \($n) active ports, devices[] has \($nactive) Active"),
	($r.findings[] | select(.check == "ports.sm") | .message
		| capture("; (?<l>.*) (is|are) not Active") | .l | split(", ")[] as $s
		| $ports[] | select(.id == $s and isactive)
		| "port \($s): ports.sm says not Active, devices[] says ACTIVE/LinkUp"),
	# ---- one problem, one finding ----
	([$r.findings[] | select(bad and (.fix | length) > 0)] | group_by(.fix)[] | select(length > 1)
		| "one problem, \(length) findings with the same fix: \(map(.check + " " + .subject) | join("; "))"),
	([$r.findings[] | select(bad and (.subject | test(" port [0-9]+$")))] | group_by(.subject)[]
		| select((map(.check) | unique | length) > 1)
		| "port \(.[0].subject): \(map(.check + " " + .status) | join(" and ")) — one problem reported twice")
)
