/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Unit tests of the policy v1 parser: every invalid document is refused
 * with the exact JSON path and a reason; valid documents fill every field.
 *
 * Table JSON is written with ' for " to stay readable; q() swaps them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "lines.h"
#include "policy/policy.h"

#define S16 "aaaaaaaaaaaaaaaa"
#define S64 S16 S16 S16 S16
#define HDR "{'version':1,'id':'t',"

/* ' -> " in a table entry; the buffer is big enough for every entry. */
static const char *q(char *buf, size_t len, const char *src)
{
	size_t i;

	for (i = 0; src[i] && i + 1 < len; i++)
		buf[i] = src[i] == '\'' ? '"' : src[i];
	buf[i] = '\0';
	assert_int_equal(src[i], '\0');
	return buf;
}

static struct rf_policy *load_ok(const char *json_q)
{
	struct rf_policy *p = NULL;
	struct rf_error err = {};
	char buf[4096];
	int r;

	r = policy__load_string(q(buf, sizeof(buf), json_q), &p, &err);
	if (r != 0)
		print_error("unexpected error %d at %s: %s\n", r, err.where, err.why);
	assert_int_equal(r, 0);
	assert_non_null(p);
	return p;
}

/* The canonical text of a policy ('-quoted like load_ok). */
static char *canonical_ok(const char *json_q)
{
	struct rf_error err = {};
	char buf[4096], *text = NULL;

	assert_int_equal(policy__canonical_text(q(buf, sizeof(buf), json_q), &text, &err), 0);
	assert_non_null(text);
	return text;
}

struct invalid_case {
	const char *name;
	const char *json;            /* ' stands for " */
	const char *where;           /* exact */
	const char *why;             /* substring */
};

static const struct invalid_case invalid_cases[] = {
	/* document */
	{ "syntax_error", "{'version':1,", "$", "line 1 column" },
	{ "trailing_garbage", HDR "'mode':'audit'} x", "$", "end of file expected" },
	{ "duplicate_key", "{'version':1,'version':1,'id':'t'}", "$", "duplicate object key" },
	{ "top_level_array", "[{'version':1,'id':'t'}]", "$", "expected an object" },
	{ "top_level_scalar", "1", "$", "expected near '1'" },
	{ "empty_document", "", "$", "near end of file" },
	{ "nul_in_key", HDR "'a\\u0000b':1}", "$", "NUL byte in object key" },
	{ "unknown_top_level_key", HDR "'foo':1}", "$.foo", "unknown key \"foo\"" },
	{ "unknown_key_is_escaped", HDR "'a\\u001b[2Jb':1}", "$[\"a\\x1b[2Jb\"]", "unknown key \"a\\x1b[2Jb\"" },
	{ "comment_key_is_unknown", HDR "'_comment':'x'}", "$._comment", "unknown key \"_comment\"" },
	/* version */
	{ "version_missing", "{'id':'t'}", "$", "missing required key \"version\"" },
	{ "version_string", "{'version':'1','id':'t'}", "$.version", "expected an integer" },
	{ "version_real", "{'version':1.0,'id':'t'}", "$.version", "expected an integer" },
	{ "version_2", "{'version':2,'id':'t'}", "$.version", "unsupported version 2 (expected 1)" },
	{ "version_checked_before_unknown_keys", "{'version':2,'id':'t','new':1}",
	  "$.version", "unsupported version 2" },
	/* id */
	{ "id_missing", "{'version':1}", "$", "missing required key \"id\"" },
	{ "id_number", "{'version':1,'id':7}", "$.id", "expected a string" },
	{ "id_uppercase", "{'version':1,'id':'Demo'}", "$.id", "id must match [a-z0-9][a-z0-9-]{0,62}" },
	{ "id_leading_dash", "{'version':1,'id':'-x'}", "$.id", "id must match" },
	{ "id_underscore", "{'version':1,'id':'a_b'}", "$.id", "id must match" },
	{ "id_empty", "{'version':1,'id':''}", "$.id", "id must match" },
	{ "id_64_bytes", "{'version':1,'id':'" S64 "'}", "$.id", "id must match" },
	{ "id_with_nul", "{'version':1,'id':'a\\u0000b'}", "$.id", "string must not contain NUL bytes" },
	/* mode */
	{ "mode_unknown_value", HDR "'mode':'permissive'}", "$.mode", "expected \"enforce\" or \"audit\"" },
	{ "mode_null", HDR "'mode':null}", "$.mode", "expected a string" },
	{ "approximate_not_boolean", HDR "'approximate':'yes'}", "$.approximate", "expected true or false" },
	/* files */
	{ "files_other_string", HDR "'files':'none'}", "$.files", "expected \"unrestricted\" or an object" },
	{ "files_unrestricted_with_nul", HDR "'files':'unrestricted\\u0000'}", "$.files",
	  "expected \"unrestricted\" or an object" },
	{ "files_array", HDR "'files':['/etc/']}", "$.files", "expected \"unrestricted\" or an object" },
	{ "files_unknown_key", HDR "'files':{'exec':[]}}", "$.files.exec", "unknown key \"exec\"" },
	{ "files_tmp_other", HDR "'files':{'tmp':'host'}}", "$.files.tmp",
	  "expected \"private\" or \"shared\"" },
	{ "files_tmp_bool", HDR "'files':{'tmp':true}}", "$.files.tmp",
	  "expected \"private\" or \"shared\"" },
	{ "files_read_not_array", HDR "'files':{'read':'/etc/'}}", "$.files.read", "expected an array of paths" },
	{ "files_read_entry_number", HDR "'files':{'read':[1]}}", "$.files.read[0]", "expected a string" },
	{ "files_read_relative", HDR "'files':{'read':['/ok','etc/passwd']}}", "$.files.read[1]",
	  "path must be absolute" },
	{ "files_read_empty_path", HDR "'files':{'read':['']}}", "$.files.read[0]", "path must not be empty" },
	{ "files_write_dotdot", HDR "'files':{'write':['/tmp/../etc/']}}", "$.files.write[0]",
	  "path must not contain \"..\" components" },
	{ "files_write_trailing_dotdot", HDR "'files':{'write':['/tmp/..']}}", "$.files.write[0]",
	  "\"..\" components" },
	{ "files_read_dot", HDR "'files':{'read':['/tmp/./x']}}", "$.files.read[0]",
	  "path must not contain \".\" components" },
	{ "files_read_trailing_dot", HDR "'files':{'read':['/tmp/.']}}", "$.files.read[0]", "\".\" components" },
	{ "files_read_double_slash", HDR "'files':{'read':['/tmp//x']}}", "$.files.read[0]",
	  "path must not contain \"//\"" },
	{ "files_read_star", HDR "'files':{'read':['/tmp/*.txt']}}", "$.files.read[0]",
	  "path must not contain wildcards" },
	{ "files_read_question_mark", HDR "'files':{'read':['/tmp/a?']}}", "$.files.read[0]",
	  "path must not contain wildcards" },
	{ "files_read_nul", HDR "'files':{'read':['/ok','/tmp/a\\u0000b']}}", "$.files.read[1]",
	  "string must not contain NUL bytes" },
	{ "files_read_256_bytes", HDR "'files':{'read':['/" S64 S64 S64 S64 "']}}", "$.files.read[0]",
	  "path must be at most 255 bytes" },
	/* exec */
	{ "exec_other_string", HDR "'exec':'all'}", "$.exec", "expected \"unrestricted\" or an array of paths" },
	{ "exec_object", HDR "'exec':{'paths':[]}}", "$.exec", "expected \"unrestricted\" or an array of paths" },
	{ "exec_relative", HDR "'exec':['/bin/sh','bin/sh']}", "$.exec[1]", "path must be absolute" },
	{ "exec_wildcard", HDR "'exec':['/usr/bin/*']}", "$.exec[0]", "wildcards" },
	/* network */
	{ "network_other_string", HDR "'network':'none'}", "$.network", "expected \"unrestricted\" or an object" },
	{ "network_array", HDR "'network':[]}", "$.network", "expected \"unrestricted\" or an object" },
	{ "network_unknown_key", HDR "'network':{'listen':[]}}", "$.network.listen", "unknown key \"listen\"" },
	{ "connect_other_string", HDR "'network':{'connect':'any'}}", "$.network.connect",
	  "expected \"unrestricted\" or an array of endpoints" },
	{ "connect_entry_number", HDR "'network':{'connect':[80]}}", "$.network.connect[0]", "expected a string" },
	{ "connect_wildcard", HDR "'network':{'connect':['127.0.0.1:80','10.0.0.1:1','*:443']}}",
	  "$.network.connect[2]", "a wildcard must be a leading '*.' before a domain" },
	{ "connect_wildcard_public_suffix", HDR "'network':{'connect':['*.com:443']}}",
	  "$.network.connect[0]", "wildcard over a public suffix" },
	{ "connect_wildcard_once", HDR "'network':{'connect':['*.example.test:443'],'dns':'once'}}",
	  "$.network.connect[0]", "a wildcard needs \"dns\": \"gate\"" },
	{ "dns_bad_mode", HDR "'network':{'dns':'udp'}}", "$.network.dns.mode",
	  "expected \"gate\" or \"once\"" },
	{ "dns_number", HDR "'network':{'dns':53}}", "$.network.dns",
	  "expected \"gate\", \"once\" or an object" },
	{ "dns_unknown_key", HDR "'network':{'dns':{'servers':[]}}}", "$.network.dns.servers",
	  "unknown key \"servers\"" },
	{ "dns_upstream_name", HDR "'network':{'dns':{'upstream':['dns.example']}}}",
	  "$.network.dns.upstream[0]", "expected an IP address" },
	{ "dns_rebind_allow_port", HDR "'network':{'dns':{'rebind_allow':['10.0.0.0/8:53']}}}",
	  "$.network.dns.rebind_allow[0]", "expected an IP address or CIDR without brackets or port" },
	{ "connect_port_zero", HDR "'network':{'connect':['a.example:0']}}", "$.network.connect[0]",
	  "port out of range (1-65535)" },
	{ "connect_url", HDR "'network':{'connect':['https://example.com:443']}}", "$.network.connect[0]",
	  "URLs are not allowed" },
	{ "connect_host_bits", HDR "'network':{'connect':['10.0.0.1/8:80']}}", "$.network.connect[0]",
	  "host bits set in CIDR" },
	{ "connect_unbracketed_ipv6", HDR "'network':{'connect':['::1:80']}}", "$.network.connect[0]",
	  "IPv6 addresses must be bracketed" },
	{ "connect_missing_port", HDR "'network':{'connect':['example.com']}}", "$.network.connect[0]",
	  "missing port" },
	{ "connect_user_info", HDR "'network':{'connect':['u@example.com:22']}}", "$.network.connect[0]",
	  "user-info" },
	{ "connect_zone_id", HDR "'network':{'connect':['[fe80::1%eth0]:80']}}", "$.network.connect[0]",
	  "zone ids" },
	{ "connect_nul", HDR "'network':{'connect':['a.example:80\\u0000']}}", "$.network.connect[0]",
	  "string must not contain NUL bytes" },
	{ "unix_other_string", HDR "'network':{'unix':'none'}}", "$.network.unix",
	  "expected \"unrestricted\" or an array of socket names" },
	{ "unix_relative", HDR "'network':{'unix':['run/x.sock']}}", "$.network.unix[0]",
	  "expected an absolute path or @abstract-name" },
	{ "unix_empty", HDR "'network':{'unix':['']}}", "$.network.unix[0]", "path must not be empty" },
	{ "unix_abstract_empty", HDR "'network':{'unix':['@']}}", "$.network.unix[0]",
	  "abstract socket name must not be empty" },
	{ "unix_abstract_space", HDR "'network':{'unix':['@a b']}}", "$.network.unix[0]",
	  "abstract socket name must be printable ASCII (0x21-0x7e)" },
	{ "unix_abstract_non_ascii", HDR "'network':{'unix':['@caf\\u00e9']}}", "$.network.unix[0]",
	  "printable ASCII" },
	{ "unix_abstract_108_bytes", HDR "'network':{'unix':['@" S64 S16 S16 "aaaaaaaaaaaa']}}",
	  "$.network.unix[0]", "abstract socket name must be at most 107 bytes" },
	{ "unix_path_108_bytes", HDR "'network':{'unix':['/" S64 S16 S16 "aaaaaaaaaaa']}}",
	  "$.network.unix[0]", "unix socket path must be at most 107 bytes" },
	{ "unix_dotdot", HDR "'network':{'unix':['/run/../x.sock']}}", "$.network.unix[0]", "\"..\" components" },
	{ "unix_wildcard", HDR "'network':{'unix':['/run/*.sock']}}", "$.network.unix[0]", "wildcards" },
	/* env */
	{ "env_array", HDR "'env':[]}", "$.env", "expected an object" },
	{ "env_unknown_key", HDR "'env':{'clear':true}}", "$.env.clear", "unknown key \"clear\"" },
	{ "env_pass_string", HDR "'env':{'pass':'PATH'}}", "$.env.pass", "expected an array of variable names" },
	{ "env_pass_number", HDR "'env':{'pass':[1]}}", "$.env.pass[0]", "expected a string" },
	{ "env_pass_leading_digit", HDR "'env':{'pass':['PATH','1X']}}", "$.env.pass[1]",
	  "invalid variable name \"1X\"" },
	{ "env_pass_equals_sign", HDR "'env':{'pass':['A=B']}}", "$.env.pass[0]", "invalid variable name \"A=B\"" },
	{ "env_pass_empty_name", HDR "'env':{'pass':['']}}", "$.env.pass[0]", "invalid variable name \"\"" },
	{ "env_pass_duplicate", HDR "'env':{'pass':['PATH','HOME','PATH']}}", "$.env.pass[2]",
	  "duplicate variable name \"PATH\"" },
	{ "env_pass_256_bytes", HDR "'env':{'pass':['" S64 S64 S64 S64 "']}}", "$.env.pass[0]",
	  "variable name must be at most 255 bytes" },
	{ "env_set_array", HDR "'env':{'set':[]}}", "$.env.set", "expected an object" },
	{ "env_set_bad_name", HDR "'env':{'set':{'A-B':'x'}}}", "$.env.set.A-B", "invalid variable name \"A-B\"" },
	/* a key with a newline, refused for its value: the path quotes it (one
	 * line; found by fuzz_policy) */
	{ "env_set_key_quoted_in_path", HDR "'env':{'set':{'A\\nB':'${HOME'}}}",
	  "$.env.set[\"A\\x0aB\"]", "unterminated" },
	{ "env_set_value_number", HDR "'env':{'set':{'LANG':1}}}", "$.env.set.LANG", "expected a string" },
	{ "env_set_value_nul", HDR "'env':{'set':{'LANG':'C\\u0000'}}}", "$.env.set.LANG",
	  "string must not contain NUL bytes" },
	/* limits */
	{ "limits_empty", HDR "'limits':{}}", "$.limits", "expected at least one limit" },
	{ "limits_array", HDR "'limits':[]}", "$.limits", "expected an object" },
	{ "limits_unknown_key", HDR "'limits':{'cpu':1}}", "$.limits.cpu", "unknown key \"cpu\"" },
	{ "limits_pids_zero", HDR "'limits':{'pids':0}}", "$.limits.pids", "out of range (1-4194304)" },
	{ "limits_pids_too_big", HDR "'limits':{'pids':4194305}}", "$.limits.pids", "out of range (1-4194304)" },
	{ "limits_memory_string", HDR "'limits':{'memory_mb':'512'}}", "$.limits.memory_mb", "expected an integer" },
	{ "limits_memory_too_big", HDR "'limits':{'memory_mb':16777217}}", "$.limits.memory_mb",
	  "out of range (1-16777216)" },
	{ "limits_cpu_real", HDR "'limits':{'cpu_percent':50.5}}", "$.limits.cpu_percent", "expected an integer" },
	{ "limits_cpu_too_big", HDR "'limits':{'cpu_percent':100001}}", "$.limits.cpu_percent",
	  "out of range (1-100000)" },
	{ "limits_wall_negative", HDR "'limits':{'wall_seconds':-1}}", "$.limits.wall_seconds",
	  "out of range (1-31536000)" },
	{ "limits_output_too_big", HDR "'limits':{'output_bytes':1125899906842625}}", "$.limits.output_bytes",
	  "out of range (1-1125899906842624)" },
	{ "limits_bool", HDR "'limits':{'pids':true}}", "$.limits.pids", "expected an integer" },
	{ "limits_integer_overflow", HDR "'limits':{'pids':99999999999999999999}}", "$", "too big integer" },
	{ "limits_memory_zero", HDR "'limits':{'memory_mb':0}}", "$.limits.memory_mb",
	  "out of range (1-16777216)" },
	{ "limits_wall_zero", HDR "'limits':{'wall_seconds':0}}", "$.limits.wall_seconds",
	  "out of range (1-31536000)" },
	{ "limits_output_negative", HDR "'limits':{'output_bytes':-5}}", "$.limits.output_bytes",
	  "out of range (1-1125899906842624)" },
	{ "limits_cpu_zero", HDR "'limits':{'cpu_percent':0}}", "$.limits.cpu_percent",
	  "out of range (1-100000)" },
	{ "limits_egress_zero", HDR "'limits':{'egress_bytes':0}}", "$.limits.egress_bytes",
	  "out of range (1-1125899906842624)" },
	{ "limits_egress_string", HDR "'limits':{'egress_bytes':'1M'}}", "$.limits.egress_bytes",
	  "expected an integer" },
	{ "limits_disk_too_big", HDR "'limits':{'disk_write_mb':1073741825}}",
	  "$.limits.disk_write_mb", "out of range (1-1073741824)" },
	{ "scratch_string", HDR "'limits':{'scratch':'/tmp'}}", "$.limits.scratch",
	  "expected an object {\"path\": ..., \"size_mb\": ...}" },
	{ "scratch_no_path", HDR "'limits':{'scratch':{'size_mb':1}}}", "$.limits.scratch",
	  "missing required key \"path\"" },
	{ "scratch_no_size", HDR "'limits':{'scratch':{'path':'/tmp'}}}", "$.limits.scratch",
	  "missing required key \"size_mb\"" },
	{ "scratch_unknown_key", HDR "'limits':{'scratch':{'path':'/tmp','size_mb':1,'mode':1}}}",
	  "$.limits.scratch.mode", "unknown key \"mode\"" },
	{ "scratch_relative", HDR "'limits':{'scratch':{'path':'tmp','size_mb':1}}}",
	  "$.limits.scratch.path", "path must be absolute" },
	{ "scratch_root", HDR "'limits':{'scratch':{'path':'/','size_mb':1}}}",
	  "$.limits.scratch.path", "must not be \"/\" (a tmpfs over the whole tree)" },
	{ "scratch_dotdot", HDR "'limits':{'scratch':{'path':'/tmp/../etc','size_mb':1}}}",
	  "$.limits.scratch.path", "path must not contain \"..\" components" },
	{ "scratch_path_number", HDR "'limits':{'scratch':{'path':1,'size_mb':1}}}",
	  "$.limits.scratch.path", "expected a string" },
	{ "scratch_size_zero", HDR "'limits':{'scratch':{'path':'/tmp','size_mb':0}}}",
	  "$.limits.scratch.size_mb", "out of range (1-1048576)" },
	{ "scratch_size_absurd", HDR "'limits':{'scratch':{'path':'/tmp','size_mb':1048577}}}",
	  "$.limits.scratch.size_mb", "out of range (1-1048576)" },
	/* syscalls */
	{ "syscalls_array", HDR "'syscalls':['read']}", "$.syscalls", "expected an object" },
	{ "syscalls_missing_allow", HDR "'syscalls':{'on_violation':'deny'}}", "$.syscalls",
	  "missing required key \"allow\"" },
	{ "syscalls_allow_empty", HDR "'syscalls':{'allow':[]}}", "$.syscalls.allow",
	  "expected a non-empty array of syscall names" },
	{ "syscalls_allow_string", HDR "'syscalls':{'allow':'read'}}", "$.syscalls.allow",
	  "expected a non-empty array of syscall names" },
	{ "syscalls_uppercase_name", HDR "'syscalls':{'allow':['read','Write']}}", "$.syscalls.allow[1]",
	  "invalid syscall name \"Write\"" },
	{ "syscalls_name_64_bytes", HDR "'syscalls':{'allow':['" S64 "']}}", "$.syscalls.allow[0]",
	  "invalid syscall name" },
	{ "syscalls_duplicate", HDR "'syscalls':{'allow':['read','write','read']}}", "$.syscalls.allow[2]",
	  "duplicate syscall name \"read\"" },
	{ "syscalls_on_violation_kill", HDR "'syscalls':{'allow':['read'],'on_violation':'kill'}}",
	  "$.syscalls.on_violation", "expected \"deny\" or \"alert\"" },
	{ "syscalls_unknown_key", HDR "'syscalls':{'allow':['read'],'deny':['ptrace']}}", "$.syscalls.deny",
	  "unknown key \"deny\"" },
	/* monitor */
	{ "monitor_not_object", HDR "'monitor':true}", "$.monitor", "expected an object" },
	{ "monitor_unknown_key", HDR "'monitor':{'net':1}}", "$.monitor.net", "unknown key \"net\"" },
	{ "monitor_burst_not_object", HDR "'monitor':{'deny_burst':5}}", "$.monitor.deny_burst",
	  "expected an object" },
	{ "monitor_burst_missing_window", HDR "'monitor':{'deny_burst':{'count':5}}}", "$.monitor.deny_burst",
	  "missing required key \"window_ms\"" },
	{ "monitor_burst_missing_count", HDR "'monitor':{'deny_burst':{'window_ms':5}}}", "$.monitor.deny_burst",
	  "missing required key \"count\"" },
	{ "monitor_burst_unknown_key", HDR "'monitor':{'deny_burst':{'count':1,'window_ms':1,'x':1}}}",
	  "$.monitor.deny_burst.x", "unknown key \"x\"" },
	{ "monitor_burst_count_zero", HDR "'monitor':{'deny_burst':{'count':0,'window_ms':1}}}",
	  "$.monitor.deny_burst.count", "out of range (1-1000000)" },
	{ "monitor_burst_window_too_big", HDR "'monitor':{'deny_burst':{'count':1,'window_ms':3600001}}}",
	  "$.monitor.deny_burst.window_ms", "out of range (1-3600000)" },
	{ "monitor_cpu_zero", HDR "'monitor':{'cpu_percent':0}}", "$.monitor.cpu_percent", "out of range (1-100000)" },
	{ "monitor_memory_too_big", HDR "'monitor':{'memory_mb':16777217}}", "$.monitor.memory_mb",
	  "out of range (1-16777216)" },
	{ "monitor_pids_string", HDR "'monitor':{'pids':'10'}}", "$.monitor.pids", "expected an integer" },
	{ "monitor_dns_names_missing_window", HDR "'monitor':{'dns_names':{'count':5}}}",
	  "$.monitor.dns_names", "missing required key \"window_ms\"" },
	{ "monitor_dns_names_count_zero", HDR "'monitor':{'dns_names':{'count':0,'window_ms':1}}}",
	  "$.monitor.dns_names.count", "out of range (1-1000000)" },
	{ "monitor_dns_label_len_64", HDR "'monitor':{'dns_label_len':64}}", "$.monitor.dns_label_len",
	  "out of range (1-63)" },
	{ "monitor_disk_write_zero", HDR "'monitor':{'disk_write_mb':0}}", "$.monitor.disk_write_mb",
	  "out of range" },
	{ "monitor_egress_zero", HDR "'monitor':{'egress_bytes':0}}", "$.monitor.egress_bytes",
	  "out of range" },
	{ "monitor_egress_window_alone", HDR "'monitor':{'egress_window_ms':1000}}",
	  "$.monitor.egress_window_ms", "needs \"egress_bytes\" beside it" },
	{ "monitor_egress_window_zero", HDR "'monitor':{'egress_bytes':1,'egress_window_ms':0}}",
	  "$.monitor.egress_window_ms", "out of range" },
	{ "monitor_exec_empty", HDR "'monitor':{'exec':[]}}", "$.monitor.exec",
	  "expected a non-empty array of programs" },
	{ "monitor_exec_relative_path", HDR "'monitor':{'exec':['bin/git']}}", "$.monitor.exec[0]",
	  "expected a program name without '/' or an absolute path" },
	{ "monitor_exec_duplicate", HDR "'monitor':{'exec':['git','git']}}", "$.monitor.exec[1]",
	  "duplicate program \"git\"" },
	{ "monitor_exec_not_string", HDR "'monitor':{'exec':[1]}}", "$.monitor.exec[0]",
	  "expected a string" },
	{ "monitor_files_empty", HDR "'monitor':{'files':[]}}", "$.monitor.files",
	  "expected a non-empty array of absolute paths" },
	{ "monitor_files_not_array", HDR "'monitor':{'files':'/usr/'}}", "$.monitor.files",
	  "expected a non-empty array of absolute paths" },
	{ "monitor_files_relative", HDR "'monitor':{'files':['/usr/','etc/hostname']}}",
	  "$.monitor.files[1]", "path must be absolute" },
	{ "monitor_files_dotdot", HDR "'monitor':{'files':['/usr/../etc/']}}",
	  "$.monitor.files[0]", "path must not contain \"..\" components" },
	{ "monitor_files_not_string", HDR "'monitor':{'files':[1]}}", "$.monitor.files[0]",
	  "expected a string" },
	{ "monitor_files_duplicate", HDR "'monitor':{'files':['/usr/','/usr/']}}",
	  "$.monitor.files[1]", "duplicate path \"/usr/\"" },
	{ "monitor_on_alert_block", HDR "'monitor':{'on_alert':'block'}}", "$.monitor.on_alert",
	  "expected \"alert\", \"freeze\" or \"kill\"" },
};

#define N_INVALID (sizeof(invalid_cases) / sizeof(invalid_cases[0]))

static void test_invalid_policy_is_rejected_at_path(void **state)
{
	const struct invalid_case *c = *state;
	struct rf_policy *p = NULL;
	struct rf_error err = {};
	char buf[2048];
	int r;

	r = policy__load_string(q(buf, sizeof(buf), c->json), &p, &err);
	if (r != -EINVAL || strcmp(err.where, c->where) || !strstr(err.why, c->why))
		print_error("%s: r=%d where=\"%s\" why=\"%s\"; want where=\"%s\" why~\"%s\"\n",
			    c->name, r, err.where, err.why, c->where, c->why);
	policy__free(p);
	assert_int_equal(r, -EINVAL);
	assert_null(p);
	assert_string_equal(err.where, c->where);
	assert_non_null(strstr(err.why, c->why));
}

/* ---- valid documents: the parsed policy as key=value lines ----------- */

static const char *confine(enum rf_confine c)
{
	return c == RF_CONFINE_DENY_ALL ? "deny-all" : c == RF_CONFINE_ALLOWLIST ? "allowlist" :
	       "unrestricted";
}

static void paths(struct lines *l, const char *key, const struct rf_path_list *v)
{
	size_t i;

	line(l, "%s.n=%zu", key, v->n);
	for (i = 0; i < v->n; i++) {
		line(l, "%s[%zu]=%s", key, i, v->v[i].path);
		line(l, "%s[%zu].subtree=%d", key, i, v->v[i].subtree);
	}
}

static void opt(struct lines *l, const char *key, const struct rf_opt_u64 *o)
{
	if (o->set)
		line(l, "%s=%llu", key, (unsigned long long)o->v);
	else
		line(l, "%s=unset", key);
}

static void endpoints(struct lines *l, const struct rf_policy *p)
{
	size_t i;
	int k;

	line(l, "connect=%s", confine(p->net_connect));
	line(l, "connect.n=%zu", p->n_connect);
	for (i = 0; i < p->n_connect; i++) {
		const struct rf_endpoint *e = &p->connect[i];
		char hex[33] = "";

		for (k = 0; k < (e->family == AF_INET6 ? 16 : 4); k++)
			snprintf(hex + 2 * k, 3, "%02x", e->addr[k]);
		line(l, "connect[%zu]=%s", i, e->text);
		line(l, "connect[%zu].kind=%s", i, e->kind == RF_HOST_NAME ? "name" : "addr");
		line(l, "connect[%zu].name=%s", i, e->name ? e->name : "");
		line(l, "connect[%zu].family=%d", i, e->family == AF_INET6 ? 6 :
						     e->family == AF_INET ? 4 : 0);
		line(l, "connect[%zu].addr=%s", i, hex);
		line(l, "connect[%zu].prefix=%u", i, e->prefix_len);
		line(l, "connect[%zu].cidr=%d", i, e->cidr);
		line(l, "connect[%zu].ports=%u-%u", i, e->port_lo, e->port_hi);
	}
	line(l, "unix=%s", confine(p->net_unix));
	line(l, "unix.n=%zu", p->n_unix);
	for (i = 0; i < p->n_unix; i++) {
		line(l, "unix[%zu]=%s", i, p->unix_rules[i].text);
		line(l, "unix[%zu].name=%s", i, p->unix_rules[i].name);
		line(l, "unix[%zu].abstract=%d", i, p->unix_rules[i].abstract);
		line(l, "unix[%zu].subtree=%d", i, p->unix_rules[i].subtree);
	}
}

static void sections(struct lines *l, const struct rf_policy *p)
{
	const struct rf_limits *lim = &p->limits;
	const struct rf_monitor *m = &p->monitor;
	size_t i;

	line(l, "env.pass.n=%zu", p->n_env_pass);
	for (i = 0; i < p->n_env_pass; i++)
		line(l, "env.pass[%zu]=%s", i, p->env_pass[i]);
	line(l, "env.set.n=%zu", p->n_env_set);
	for (i = 0; i < p->n_env_set; i++)
		line(l, "env.set[%zu]=%s=%s", i, p->env_set[i].name, p->env_set[i].value);
	line(l, "limits=%s", lim->present ? "present" : "absent");
	opt(l, "limits.pids", &lim->pids);
	opt(l, "limits.memory_mb", &lim->memory_mb);
	opt(l, "limits.cpu_percent", &lim->cpu_percent);
	opt(l, "limits.wall_seconds", &lim->wall_seconds);
	opt(l, "limits.output_bytes", &lim->output_bytes);
	if (lim->scratch.set)
		line(l, "limits.scratch=%s %llu", lim->scratch.path,
		     (unsigned long long)lim->scratch.size_mb);
	else
		line(l, "limits.scratch=unset");
	opt(l, "limits.egress_bytes", &lim->egress_bytes);
	opt(l, "limits.disk_write_mb", &lim->disk_write_mb);
	line(l, "syscalls=%s", p->syscalls.present ? "present" : "absent");
	line(l, "syscalls.n=%zu", p->syscalls.n_allow);
	for (i = 0; i < p->syscalls.n_allow; i++)
		line(l, "syscalls.allow[%zu]=%s", i, p->syscalls.allow[i]);
	line(l, "syscalls.on_violation=%s",
	     p->syscalls.on_violation == RF_VIOLATION_ALERT ? "alert" : "deny");
	line(l, "monitor=%s", m->present ? "present" : "absent");
	opt(l, "monitor.deny_burst_count", &m->deny_burst_count);
	opt(l, "monitor.deny_burst_window_ms", &m->deny_burst_window_ms);
	opt(l, "monitor.cpu_percent", &m->cpu_percent);
	opt(l, "monitor.memory_mb", &m->memory_mb);
	opt(l, "monitor.pids", &m->pids);
	opt(l, "monitor.dns_names_count", &m->dns_names_count);
	opt(l, "monitor.dns_names_window_ms", &m->dns_names_window_ms);
	opt(l, "monitor.dns_label_len", &m->dns_label_len);
	opt(l, "monitor.disk_write_mb", &m->disk_write_mb);
	opt(l, "monitor.egress_bytes", &m->egress_bytes);
	opt(l, "monitor.egress_window_ms", &m->egress_window_ms);
	line(l, "monitor.exec.n=%zu", m->n_exec);
	for (i = 0; i < m->n_exec; i++)
		line(l, "monitor.exec[%zu]=%s", i, m->exec[i]);
	line(l, "monitor.files.n=%zu", m->n_files);
	for (i = 0; i < m->n_files; i++)
		line(l, "monitor.files[%zu]=%s", i, m->files[i]);
	line(l, "monitor.on_alert=%s", m->on_alert == RF_ON_ALERT_KILL ? "kill" :
				      m->on_alert == RF_ON_ALERT_FREEZE ? "freeze" : "alert");
}

/* Every field the parser fills, one "key=value" line each. */
static void describe(const struct rf_policy *p, struct lines *l)
{
	lines_start(l);
	line(l, "version=%d", p->version);
	line(l, "id=%s", p->id);
	line(l, "mode=%s", p->mode == RF_MODE_AUDIT ? "audit" : "enforce");
	line(l, "approximate=%d", p->approximate);
	line(l, "digest=%s", strlen(p->digest) == 64 &&
			     strspn(p->digest, "0123456789abcdef") == 64 ? "sha256 hex" : p->digest);
	line(l, "files=%s", confine(p->files));
	paths(l, "files.read", &p->files_read);
	paths(l, "files.write", &p->files_write);
	line(l, "exec=%s", confine(p->exec));
	paths(l, "exec", &p->exec_paths);
	endpoints(l, p);
	sections(l, p);
}

struct valid_case {
	const char *name;
	const char *json;            /* ' stands for " */
	const char *want;            /* lines describe() must print, each whole */
	const char *canonical;       /* NULL, its canonical text, or "~" and a part of it */
};

#define NETWORK_Q "'network':{" \
	"'connect':['127.0.0.1:18080','Deb.Debian.org.:443','10.0.0.0/8:8000-8999','[::1]:22']," \
	"'unix':['/run/dbus/system_bus_socket','/run/user/','@my-abstract.sock','/']}}"

static const struct valid_case valid_cases[] = {
	/* omitted classes deny everything; nothing optional is present */
	{ "minimal_policy_denies_all_by_default", "{'version':1,'id':'t'}",
	  "version=1\nid=t\nmode=enforce\nfiles=deny-all\nfiles.read.n=0\nfiles.write.n=0\n"
	  "exec=deny-all\nexec.n=0\nconnect=deny-all\nconnect.n=0\nunix=deny-all\nunix.n=0\n"
	  "env.pass.n=0\nenv.set.n=0\nlimits=absent\nsyscalls=absent\nmonitor=absent\n"
	  "digest=sha256 hex\n",
	  "{\"id\":\"t\",\"mode\":\"enforce\",\"version\":1}" },
	{ "unrestricted_classes",
	  HDR "'files':'unrestricted','exec':'unrestricted','network':'unrestricted'}",
	  "files=unrestricted\nexec=unrestricted\nconnect=unrestricted\nunix=unrestricted\n", NULL },
	{ "unrestricted_connect_alone", HDR "'network':{'connect':'unrestricted'}}",
	  "connect=unrestricted\nunix=allowlist\nunix.n=0\n", NULL },
	{ "unrestricted_unix_alone", HDR "'network':{'connect':[],'unix':'unrestricted'}}",
	  "connect=allowlist\nconnect.n=0\nunix=unrestricted\n", NULL },
	/* an object given with its keys absent is an empty allowlist, not open */
	{ "empty_objects_are_empty_allowlists", HDR "'files':{},'exec':[],'network':{}}",
	  "files=allowlist\nfiles.read.n=0\nfiles.write.n=0\nexec=allowlist\nexec.n=0\n"
	  "connect=allowlist\nconnect.n=0\nunix=allowlist\nunix.n=0\n", NULL },
	/* ".hidden" and "..x" are names, not "." or ".." components */
	{ "file_and_exec_allowlists",
	  HDR "'files':{'read':['/','/etc/ssl/','/usr/lib/x.so','/a/.hidden/..x'],"
	  "'write':['/tmp/out/']},'exec':['/usr/bin/python3','/opt/tools/']}",
	  "files=allowlist\nfiles.read.n=4\nfiles.read[0]=/\nfiles.read[0].subtree=1\n"
	  "files.read[1]=/etc/ssl/\nfiles.read[1].subtree=1\nfiles.read[2]=/usr/lib/x.so\n"
	  "files.read[2].subtree=0\nfiles.read[3]=/a/.hidden/..x\nfiles.write.n=1\n"
	  "files.write[0]=/tmp/out/\nfiles.write[0].subtree=1\nexec=allowlist\nexec.n=2\n"
	  "exec[0]=/usr/bin/python3\nexec[0].subtree=0\nexec[1].subtree=1\n", NULL },
	{ "network_allowlists", HDR NETWORK_Q,
	  "connect=allowlist\nconnect.n=4\nconnect[0]=127.0.0.1:18080\nconnect[0].kind=addr\n"
	  "connect[0].family=4\nconnect[0].addr=7f000001\nconnect[0].prefix=32\n"
	  "connect[0].ports=18080-18080\nconnect[1].kind=name\nconnect[1].name=deb.debian.org\n"
	  "connect[2].cidr=1\nconnect[2].prefix=8\nconnect[2].ports=8000-8999\n"
	  "connect[3].family=6\n"
	  "unix=allowlist\nunix.n=4\nunix[0]=/run/dbus/system_bus_socket\n"
	  "unix[0].name=/run/dbus/system_bus_socket\nunix[0].abstract=0\nunix[0].subtree=0\n"
	  "unix[1].name=/run/user/\nunix[1].subtree=1\nunix[2]=@my-abstract.sock\n"
	  "unix[2].name=my-abstract.sock\nunix[2].abstract=1\nunix[2].subtree=0\n"
	  "unix[3].subtree=1\n", NULL },
	/* document order is kept */
	{ "env_pass_and_set",
	  HDR "'env':{'pass':['PATH','_x1','lower'],"
	  "'set':{'LANG':'C.UTF-8','EMPTY':'','PATH':'/usr/bin'}}}",
	  "env.pass.n=3\nenv.pass[0]=PATH\nenv.pass[1]=_x1\nenv.pass[2]=lower\nenv.set.n=3\n"
	  "env.set[0]=LANG=C.UTF-8\nenv.set[1]=EMPTY=\nenv.set[2]=PATH=/usr/bin\n", NULL },
	{ "env_empty", HDR "'env':{}}", "env.pass.n=0\nenv.set.n=0\n", NULL },
	{ "limits_at_their_maximum",
	  HDR "'limits':{'pids':4194304,'memory_mb':16777216,'cpu_percent':100000,"
	  "'wall_seconds':31536000,'output_bytes':1125899906842624}}",
	  "limits=present\nlimits.pids=4194304\nlimits.memory_mb=16777216\n"
	  "limits.cpu_percent=100000\nlimits.wall_seconds=31536000\n"
	  "limits.output_bytes=1125899906842624\n", NULL },
	{ "limits_ledger_budgets",
	  HDR "'limits':{'egress_bytes':1125899906842624,'disk_write_mb':1}}",
	  "limits.scratch=unset\nlimits.egress_bytes=1125899906842624\nlimits.disk_write_mb=1\n",
	  NULL },
	{ "limits_one", HDR "'limits':{'pids':1}}",
	  "limits=present\nlimits.pids=1\nlimits.memory_mb=unset\nlimits.cpu_percent=unset\n"
	  "limits.wall_seconds=unset\nlimits.output_bytes=unset\nlimits.scratch=unset\n", NULL },
	/* the scratch path loses a trailing '/' (it names the mount point) */
	{ "scratch_trailing_slash", HDR "'limits':{'scratch':{'path':'/tmp/','size_mb':1048576}}}",
	  "limits=present\nlimits.scratch=/tmp 1048576\n", NULL },
	{ "scratch", HDR "'limits':{'scratch':{'path':'/var/tmp','size_mb':1}}}",
	  "limits.scratch=/var/tmp 1\n", NULL },
	{ "syscalls", HDR "'syscalls':{'allow':['read','write','exit_group','pread64']}}",
	  "syscalls=present\nsyscalls.n=4\nsyscalls.allow[0]=read\nsyscalls.allow[3]=pread64\n"
	  "syscalls.on_violation=deny\n", NULL },
	{ "syscalls_alert", HDR "'syscalls':{'allow':['read'],'on_violation':'alert'}}",
	  "syscalls.on_violation=alert\n", NULL },
	{ "syscalls_deny", HDR "'syscalls':{'allow':['read'],'on_violation':'deny'}}",
	  "syscalls.on_violation=deny\n", NULL },
	{ "monitor", HDR "'monitor':{'deny_burst':{'count':20,'window_ms':1000},"
	  "'cpu_percent':150,'memory_mb':2048,'pids':64}}",
	  "monitor=present\nmonitor.deny_burst_count=20\nmonitor.deny_burst_window_ms=1000\n"
	  "monitor.cpu_percent=150\nmonitor.memory_mb=2048\nmonitor.pids=64\n", NULL },
	{ "monitor_detect", HDR "'monitor':{'dns_names':{'count':200,'window_ms':5000},"
	  "'dns_label_len':40,'disk_write_mb':10,'egress_bytes':100000,'egress_window_ms':5000,"
	  "'exec':['python3','/usr/bin/env'],'on_alert':'kill'}}",
	  "monitor.dns_names_count=200\nmonitor.dns_names_window_ms=5000\nmonitor.dns_label_len=40\n"
	  "monitor.disk_write_mb=10\nmonitor.egress_bytes=100000\nmonitor.egress_window_ms=5000\n"
	  "monitor.exec.n=2\nmonitor.exec[0]=python3\n"
	  "monitor.exec[1]=/usr/bin/env\nmonitor.on_alert=kill\n", NULL },
	{ "monitor_files", HDR "'monitor':{'files':['/usr/','/work/x/f.txt'],'on_alert':'freeze'}}",
	  "monitor.exec.n=0\nmonitor.files.n=2\nmonitor.files[0]=/usr/\n"
	  "monitor.files[1]=/work/x/f.txt\nmonitor.on_alert=freeze\n", NULL },
	{ "monitor_one", HDR "'monitor':{'pids':1}}",
	  "monitor=present\nmonitor.deny_burst_count=unset\nmonitor.deny_burst_window_ms=unset\n"
	  "monitor.cpu_percent=unset\nmonitor.pids=1\n", NULL },
	{ "approximate_opt_in", HDR "'approximate':true}", "approximate=1\n", NULL },
	{ "approximate_off_by_default", HDR "'mode':'audit'}", "approximate=0\n", NULL },
	{ "audit_mode", HDR "'mode':'audit'}", "mode=audit\n", "~\"mode\":\"audit\"" },
	{ "explicit_enforce", HDR "'mode':'enforce'}", "mode=enforce\n", NULL },
	/* a literal "${" ("$${" written) stays escaped in the canonical text,
	 * which must load again to the same policy (fuzz_policy found it) */
	{ "literal_dollar_brace_escaped_in_canonical", HDR "'exec':['/bin/a$${b']}",
	  "exec[0]=/bin/a${b\n", "~\"/bin/a$${b\"" },
	/* escapes are decoded before validation: "\u002f" is a '/' */
	{ "json_escapes_are_decoded_before_checks", HDR "'files':{'read':['\\u002fetc\\/']}}",
	  "files.read[0]=/etc/\nfiles.read[0].subtree=1\n", NULL },
};

#define N_VALID (sizeof(valid_cases) / sizeof(valid_cases[0]))

static void test_valid_policy_parses_to(void **state)
{
	const struct valid_case *c = *state;
	struct rf_policy *p = load_ok(c->json);
	static struct lines got;

	describe(p, &got);
	policy__free(p);
	lines_expect(&got, c->name, c->want);
	if (c->canonical) {
		char *text = canonical_ok(c->json);

		if (c->canonical[0] == '~' ? !strstr(text, c->canonical + 1) :
					     strcmp(text, c->canonical) != 0)
			fail_msg("%s: canonical text %s, want %s", c->name, text, c->canonical);
		free(text);
	}
}

/* The longest accepted values, one byte short of each limit's error. */
static void test_valid_values_at_length_limits(void **state)
{
	struct rf_policy *p = load_ok("{'version':1,'id':'" S16 S16 S16 "aaaaaaaaaaaaaaa',"
		"'files':{'read':['/" S64 S64 S64 S16 S16 S16 "aaaaaaaaaaaaaa']},"
		"'network':{'unix':['/" S64 S16 S16 "aaaaaaaaaa','@" S64 S16 S16 "aaaaaaaaaaa']},"
		"'env':{'pass':['" S64 S64 S64 S16 S16 S16 "aaaaaaaaaaaaaaa']},"
		"'syscalls':{'allow':['" S16 S16 S16 "aaaaaaaaaaaaaaa']}}");

	(void)state;
	assert_int_equal(strlen(p->id), 63);
	assert_int_equal(strlen(p->files_read.v[0].path), 255);
	assert_int_equal(strlen(p->unix_rules[0].name), 107);
	assert_int_equal(strlen(p->unix_rules[1].name), 107);
	assert_int_equal(strlen(p->env_pass[0]), 255);
	assert_int_equal(strlen(p->syscalls.allow[0]), 63);
	policy__free(p);
}

/* env values: 32 KiB is accepted, one byte more is not. */
static void test_env_value_length_limit(void **state)
{
	const char *pre = "{\"version\":1,\"id\":\"t\",\"env\":{\"set\":{\"BIG\":\"";
	size_t plen = strlen(pre), max = 32 * 1024;
	struct rf_policy *p = NULL;
	struct rf_error err = {};
	char *doc;

	(void)state;
	doc = malloc(plen + max + 16);
	assert_non_null(doc);
	memcpy(doc, pre, plen);
	memset(doc + plen, 'v', max);
	strcpy(doc + plen + max, "\"}}}");
	assert_int_equal(policy__load_string(doc, &p, &err), 0);
	assert_int_equal(strlen(p->env_set[0].value), max);
	policy__free(p);
	p = NULL;

	memset(doc + plen, 'v', max + 1);
	strcpy(doc + plen + max + 1, "\"}}}");
	assert_int_equal(policy__load_string(doc, &p, &err), -EINVAL);
	assert_null(p);
	assert_string_equal(err.where, "$.env.set.BIG");
	assert_non_null(strstr(err.why, "value must be at most 32768 bytes"));
	free(doc);
}

static void test_check_path_rules(void **state)
{
	static const struct {
		const char *path;
		const char *why;     /* NULL: valid */
	} cases[] = {
		{ "/", NULL },
		{ "/etc", NULL },
		{ "/etc/", NULL },
		{ "/a/b/c.d", NULL },
		{ "/...", NULL },
		{ "/.a/..b/c.", NULL },
		{ "/with space/and\ttab", NULL },
		{ "", "path must not be empty" },
		{ "etc", "path must be absolute" },
		{ "./etc", "path must be absolute" },
		{ "~/x", "path must be absolute" },
		{ "//", "path must not contain \"//\"" },
		{ "/a//b", "path must not contain \"//\"" },
		{ "/a/b//", "path must not contain \"//\"" },
		{ "/.", "path must not contain \".\" components" },
		{ "/./", "path must not contain \".\" components" },
		{ "/a/./b", "path must not contain \".\" components" },
		{ "/..", "path must not contain \"..\" components" },
		{ "/a/../", "path must not contain \"..\" components" },
		{ "/a/..", "path must not contain \"..\" components" },
		{ "/a*", "path must not contain wildcards" },
		{ "/a/?", "path must not contain wildcards" },
	};
	struct rf_error e = { 0 };
	const char *why = e.why;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r;

		e = (struct rf_error){ 0 };
		r = policy__check_path(cases[i].path, &e);
		if ((r == 0) != !cases[i].why || (cases[i].why && !strstr(why, cases[i].why)))
			print_error("case %zu \"%s\": r=%d why=\"%s\"\n", i, cases[i].path, r, why);
		if (!cases[i].why) {
			assert_int_equal(r, 0);
		} else {
			assert_int_equal(r, -EINVAL);
			assert_non_null(strstr(why, cases[i].why));
		}
	}
	assert_int_equal(policy__check_path(NULL, &e), -EINVAL);
	assert_int_equal(policy__check_path("rel", NULL), -EINVAL);
}

static void test_check_path_length_limit(void **state)
{
	char path[300];
	struct rf_error e = { 0 };

	(void)state;
	path[0] = '/';
	memset(path + 1, 'p', 254);
	path[255] = '\0';
	assert_int_equal(policy__check_path(path, &e), 0);
	path[255] = 'p';
	path[256] = '\0';
	assert_int_equal(policy__check_path(path, &e), -EINVAL);
	assert_string_equal(e.why, "path must be at most 255 bytes");
	assert_string_equal(e.where, "");
}

static void test_string_over_1mib_is_refused(void **state)
{
	size_t max = RF_POLICY_MAX_BYTES;
	struct rf_policy *p = NULL;
	struct rf_error err = {};
	const char *body = "{\"version\":1,\"id\":\"t\"}";
	char *doc;

	(void)state;
	doc = malloc(max + 2);
	assert_non_null(doc);
	/* Exactly the limit, padded with whitespace: accepted. */
	memset(doc, ' ', max);
	memcpy(doc, body, strlen(body));
	doc[max] = '\0';
	assert_int_equal(policy__load_string(doc, &p, &err), 0);
	policy__free(p);
	p = NULL;

	doc[max] = ' ';
	doc[max + 1] = '\0';
	assert_int_equal(policy__load_string(doc, &p, &err), -EFBIG);
	assert_null(p);
	assert_string_equal(err.where, "$");
	assert_non_null(strstr(err.why, "larger than 32 MiB"));
	free(doc);
}

static void test_null_arguments(void **state)
{
	struct rf_policy *p = NULL;
	struct rf_error err = {};

	(void)state;
	policy__free(NULL);
	assert_int_equal(policy__load_string(NULL, &p, &err), -EINVAL);
	assert_int_equal(policy__load_string("{}", NULL, &err), -EINVAL);
	assert_int_equal(policy__load_file(NULL, &p, &err), -EINVAL);
	/* err may be NULL. */
	assert_int_equal(policy__load_string("{\"version\":1,\"id\":\"t\"}", &p, NULL), 0);
	policy__free(p);
	assert_int_equal(policy__load_string("{", &p, NULL), -EINVAL);
}

static int write_temp(char *tmpl, const char *data, size_t len)
{
	int fd = mkstemp(tmpl);

	if (fd < 0)
		return -errno;
	if (write(fd, data, len) != (ssize_t)len) {
		close(fd);
		return -EIO;
	}
	close(fd);
	return 0;
}

static void test_file_missing_is_enoent(void **state)
{
	const char *file = "/nonexistent/ringfence/policy.json";
	struct rf_policy *p = NULL;
	struct rf_error err = {};

	(void)state;
	assert_int_equal(policy__load_file(file, &p, &err), -ENOENT);
	assert_null(p);
	assert_string_equal(err.where, file);
	assert_string_equal(err.why, strerror(ENOENT));
}

static void test_file_directory_is_eisdir(void **state)
{
	struct rf_policy *p = NULL;
	struct rf_error err = {};

	(void)state;
	assert_int_equal(policy__load_file("/", &p, &err), -EISDIR);
	assert_null(p);
	assert_string_equal(err.where, "/");
	assert_string_equal(err.why, strerror(EISDIR));
}

static void test_file_valid_and_invalid_contents(void **state)
{
	const char *good = "{\n  \"version\": 1,\n  \"id\": \"from-file\"\n}\n";
	const char *bad = "{\n  \"version\": 1,\n  \"id\": \"x\",\n  \"files\": \"none\"\n}\n";
	const char *broken = "{\n  \"version\": 1\n  \"id\": \"x\"\n}\n";
	char tmpl[] = "/tmp/rf-test-policy-XXXXXX";
	struct rf_policy *p = NULL;
	struct rf_error err = {};

	(void)state;
	assert_int_equal(write_temp(tmpl, good, strlen(good)), 0);
	assert_int_equal(policy__load_file(tmpl, &p, &err), 0);
	assert_string_equal(p->id, "from-file");
	policy__free(p);
	p = NULL;
	unlink(tmpl);

	strcpy(tmpl, "/tmp/rf-test-policy-XXXXXX");
	assert_int_equal(write_temp(tmpl, bad, strlen(bad)), 0);
	assert_int_equal(policy__load_file(tmpl, &p, &err), -EINVAL);
	assert_string_equal(err.where, "$.files");
	unlink(tmpl);

	strcpy(tmpl, "/tmp/rf-test-policy-XXXXXX");
	assert_int_equal(write_temp(tmpl, broken, strlen(broken)), 0);
	assert_int_equal(policy__load_file(tmpl, &p, &err), -EINVAL);
	assert_string_equal(err.where, "$");
	assert_non_null(strstr(err.why, "line 3 column"));
	unlink(tmpl);
}

static void test_file_over_1mib_is_efbig(void **state)
{
	char tmpl[] = "/tmp/rf-test-policy-XXXXXX";
	size_t len = RF_POLICY_MAX_BYTES + 1;
	struct rf_policy *p = NULL;
	struct rf_error err = {};
	char *data;

	(void)state;
	data = malloc(len);
	assert_non_null(data);
	memset(data, ' ', len);
	memcpy(data, "{\"version\":1,\"id\":\"t\"}", 22);
	assert_int_equal(write_temp(tmpl, data, len), 0);
	free(data);
	assert_int_equal(policy__load_file(tmpl, &p, &err), -EFBIG);
	assert_null(p);
	assert_string_equal(err.where, tmpl);
	assert_non_null(strstr(err.why, "larger than 32 MiB"));
	unlink(tmpl);
}

/* A policy that is no regular file (a pipe: /dev/fd/N, as from a shell's
 * <(...)) is read whole into a buffer that grows: one of 200 KiB (past the
 * first 64 KiB) loads; one past the cap is still refused (-EFBIG). */
static int pipe_policy(size_t pad, struct rf_policy **p, struct rf_error *err)
{
	const char *doc = "{\"version\":1,\"id\":\"piped\",\"files\":\"unrestricted\"}";
	char path[64];
	int fds[2], r, status;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		static char spaces[1 << 16];
		size_t left = pad;

		close(fds[0]);
		memset(spaces, ' ', sizeof(spaces));
		while (left > 0) {
			size_t n = left < sizeof(spaces) ? left : sizeof(spaces);
			ssize_t w = write(fds[1], spaces, n);

			if (w <= 0)
				_exit(0);   /* the reader stopped at the cap */
			left -= (size_t)w;
		}
		if (write(fds[1], doc, strlen(doc)) < 0)
			_exit(0);
		_exit(0);
	}
	close(fds[1]);
	snprintf(path, sizeof(path), "/dev/fd/%d", fds[0]);
	r = policy__load_file(path, p, err);
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return r;
}

static void test_policy_from_a_pipe(void **state)
{
	struct rf_policy *p = NULL;
	struct rf_error err = {};

	(void)state;
	assert_int_equal(pipe_policy(200 << 10, &p, &err), 0);
	assert_non_null(p);
	assert_string_equal(p->id, "piped");
	policy__free(p);
	p = NULL;
	assert_int_equal(pipe_policy((size_t)RF_POLICY_MAX_BYTES + 1, &p, &err), -EFBIG);
	assert_null(p);
	assert_non_null(strstr(err.why, "larger than 32 MiB"));
}

/* A raw NUL byte anywhere in the file is refused with its position, even
 * where jansson would stop a token at it (after a number, true or false). */
#define NUL_DOC(lit) lit, sizeof(lit) - 1

static void test_file_nul_is_refused_at_its_position(void **state)
{
	static const struct {
		const char *name;
		const char *data;
		size_t len;
		const char *at;
	} cases[] = {
		{ "after a number", NUL_DOC("{\"version\":1\0,\"id\":\"x\"}"), "line 1 column 13" },
		{ "after a number, line 2",
		  NUL_DOC("{\"version\":1,\"id\":\"x\",\n\"limits\":{\"pids\":5\0}}"),
		  "line 2 column 19" },
		{ "after true", NUL_DOC("{\"version\":1,\"id\":\"x\",\"approximate\":true\0}"),
		  "column 41" },
		{ "after false", NUL_DOC("{\"version\":1,\"id\":\"x\",\"approximate\":false\0}"),
		  "column 42" },
		{ "in a string", NUL_DOC("{\"version\":1,\"id\":\"a\0b\"}"), "column 21" },
		{ "at the end", NUL_DOC("{\"version\":1,\"id\":\"x\"}\0"), "column 23" },
		{ "alone on a line", NUL_DOC("{\"version\":1,\"id\":\"x\"}\n\0\n"), "line 2 column 1" },
		{ "the whole file", NUL_DOC("\0"), "line 1 column 1" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char tmpl[] = "/tmp/rf-test-policy-XXXXXX";
		struct rf_policy *p = NULL;
		struct rf_error err = {};
		int r;

		assert_int_equal(write_temp(tmpl, cases[i].data, cases[i].len), 0);
		r = policy__load_file(tmpl, &p, &err);
		unlink(tmpl);
		if (r != -EINVAL || p || strcmp(err.where, "$") || !strstr(err.why, "NUL byte") ||
		    !strstr(err.why, cases[i].at) || strchr(err.why, '\n'))
			fail_msg("NUL %s: %d at %s: \"%s\"; want -EINVAL at $: NUL byte ... %s",
				 cases[i].name, r, err.where, err.why, cases[i].at);
	}
}

/* The same documents without the NUL load: the refusal is the NUL's. */
static void test_file_nul_twins_without_nul_load(void **state)
{
	static const char *const docs[] = {
		"{\"version\":1,\"id\":\"x\"}",
		"{\"version\":1,\"id\":\"x\",\"approximate\":true}",
		"{\"version\":1,\"id\":\"x\",\"approximate\":false}",
		"{\"version\":1,\"id\":\"x\",\n\"limits\":{\"pids\":5}}",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		char tmpl[] = "/tmp/rf-test-policy-XXXXXX";
		struct rf_policy *p = NULL;
		struct rf_error err = {};

		assert_int_equal(write_temp(tmpl, docs[i], strlen(docs[i])), 0);
		assert_int_equal(policy__load_file(tmpl, &p, &err), 0);
		unlink(tmpl);
		policy__free(p);
	}
}

static const char *examples_dir(void)
{
	const char *d = getenv("EXAMPLES");

	return d && *d ? d : "schemas/examples";
}

static void test_every_example_loads(void **state)
{
	const char *dir = examples_dir();
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	(void)state;
	d = opendir(dir);
	if (!d)
		print_error("cannot open %s (run from the repo root or set EXAMPLES)\n", dir);
	assert_non_null(d);
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		struct rf_policy *p = NULL;
		struct rf_error err = {};
		char path[4096];
		int r;

		if (len < 5 || strcmp(de->d_name + len - 5, ".json") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		r = policy__load_file(path, &p, &err);
		if (r != 0)
			print_error("%s: %d at %s: %s\n", path, r, err.where, err.why);
		assert_int_equal(r, 0);
		policy__free(p);
		n++;
	}
	closedir(d);
	assert_true(n >= 4);
}

/* demo.json drives the demo and the host tests: pin what they rely on. */
static void test_demo_example_is_runnable_without_bpf_lsm(void **state)
{
	struct rf_policy *p = NULL;
	struct rf_error err = {};
	char path[4096];

	(void)state;
	snprintf(path, sizeof(path), "%s/demo.json", examples_dir());
	assert_int_equal(policy__load_file(path, &p, &err), 0);
	assert_string_equal(p->id, "demo");
	assert_int_equal(p->mode, RF_MODE_ENFORCE);
	assert_int_equal(p->files, RF_CONFINE_UNRESTRICTED);
	assert_int_equal(p->exec, RF_CONFINE_UNRESTRICTED);
	assert_int_equal(p->net_connect, RF_CONFINE_ALLOWLIST);
	assert_int_equal(p->n_connect, 1);
	assert_string_equal(p->connect[0].text, "127.0.0.1:18080");
	assert_int_equal(p->net_unix, RF_CONFINE_ALLOWLIST);
	assert_int_equal(p->n_unix, 0);
	assert_int_equal(p->n_env_pass, 1);
	assert_string_equal(p->env_pass[0], "PATH");
	policy__free(p);
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_valid_values_at_length_limits),
		cmocka_unit_test(test_env_value_length_limit),
		cmocka_unit_test(test_check_path_rules),
		cmocka_unit_test(test_check_path_length_limit),
		cmocka_unit_test(test_string_over_1mib_is_refused),
		cmocka_unit_test(test_null_arguments),
		cmocka_unit_test(test_file_missing_is_enoent),
		cmocka_unit_test(test_file_directory_is_eisdir),
		cmocka_unit_test(test_file_valid_and_invalid_contents),
		cmocka_unit_test(test_file_over_1mib_is_efbig),
		cmocka_unit_test(test_policy_from_a_pipe),
		cmocka_unit_test(test_file_nul_is_refused_at_its_position),
		cmocka_unit_test(test_file_nul_twins_without_nul_load),
		cmocka_unit_test(test_every_example_loads),
		cmocka_unit_test(test_demo_example_is_runnable_without_bpf_lsm),
	};
	/* One named test per document, so a failure names its case. */
	static struct CMUnitTest valid[N_VALID], invalid[N_INVALID];
	static char vnames[N_VALID][80], names[N_INVALID][80];
	size_t i;
	int failed;

	for (i = 0; i < N_VALID; i++) {
		snprintf(vnames[i], sizeof(vnames[i]), "valid_%s", valid_cases[i].name);
		valid[i] = (struct CMUnitTest){
			.name = vnames[i],
			.test_func = test_valid_policy_parses_to,
			.initial_state = (void *)&valid_cases[i],
		};
	}
	for (i = 0; i < N_INVALID; i++) {
		snprintf(names[i], sizeof(names[i]), "invalid_%s", invalid_cases[i].name);
		invalid[i] = (struct CMUnitTest){
			.name = names[i],
			.test_func = test_invalid_policy_is_rejected_at_path,
			.initial_state = (void *)&invalid_cases[i],
		};
	}
	failed = cmocka_run_group_tests_name("policy_valid", fixed, NULL, NULL);
	failed += _cmocka_run_group_tests("policy_valid_documents", valid, N_VALID, NULL, NULL);
	failed += _cmocka_run_group_tests("policy_invalid", invalid, N_INVALID, NULL, NULL);
	return failed ? 1 : 0;
}
