// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rf-lsmctl: a bare sandbox for testing the BPF-LSM programs on their own
 * (VM only). It loads the enforcer with the LSM object, makes a sandbox
 * cgroup, installs the policy's map entries with the LSM flags asked for,
 * and runs CMD inside as root with every capability (no seccomp, no
 * Landlock, no namespaces): whatever is denied, the LSM denied.
 *
 *   rf-lsmctl [-a] [-c CLASSES] [-t TRACE] POLICY -- CMD [ARGS...]
 *
 * -a audit mode; -c which classes the LSM judges, letters of "fxup"
 * (files, exec, unix, process; default all); -t writes each kernel
 * decision as one JSON line (trace__event_json). On stderr, last line:
 *   rf-lsmctl: denials N (file F, exec E, unix U, process P)
 * Exits with CMD's status (128 + signal when killed), 125 on setup errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "cgroup.h"
#include "backends/enforcer.h"
#include "policy/policy.h"
#include "backends/sbmaps.h"
#include "observe/trace.h"

static int usage(void)
{
	fprintf(stderr, "usage: rf-lsmctl [-a] [-c fxup] [-t TRACE] POLICY -- CMD [ARGS...]\n");
	return 125;
}

int main(int argc, char **argv)
{
	const char *classes = "fxup", *trace_path = NULL;
	struct rf_policy *policy = NULL;
	struct rf_enforcer *enf = NULL;
	struct rf_cgroup cg = { .dir_fd = -1 };
	struct rf_sandbox st;
	struct rf_error perr;
	char why[1024], mount[256], name[64], procs[4200];
	uint32_t flags = RF_SB_NET_UNRESTRICTED;
	bool audit = false;
	int opt, parent_fd, err, status = 0, rc = 125;
	pid_t pid;
	FILE *tf = NULL;

	while ((opt = getopt(argc, argv, "+ac:t:")) != -1) {
		switch (opt) {
		case 'a': audit = true; break;
		case 'c': classes = optarg; break;
		case 't': trace_path = optarg; break;
		default: return usage();
		}
	}
	if (argc - optind < 3 || strcmp(argv[optind + 1], "--"))
		return usage();
	if (policy__load_file(argv[optind], &policy, &perr)) {
		fprintf(stderr, "rf-lsmctl: policy: %s: %s\n", perr.where, perr.why);
		return 125;
	}
	if (strchr(classes, 'f'))
		flags |= RF_SB_LSM_FILES;
	if (strchr(classes, 'x'))
		flags |= RF_SB_LSM_EXEC;
	if (strchr(classes, 'p'))
		flags |= RF_SB_LSM_PROCESS;
	/* as the planner does: the allowed pathnames are their servers' */
	if (strchr(classes, 'u') && policy->net_unix != RF_CONFINE_UNRESTRICTED)
		flags |= RF_SB_LSM_UNIX | RF_SB_LSM_UNIX_NAMES;
	else
		flags |= RF_SB_UNIX_UNRESTRICTED;
	if (audit || policy->mode == RF_MODE_AUDIT)
		flags |= RF_SB_AUDIT;

	err = cgroup__find_v2_mount(mount, sizeof(mount));
	if (err) {
		fprintf(stderr, "rf-lsmctl: no cgroup2: %s\n", strerror(-err));
		goto out;
	}
	parent_fd = cgroup__open_parent(mount);
	if (parent_fd < 0) {
		fprintf(stderr, "rf-lsmctl: cgroup parent: %s\n", strerror(-parent_fd));
		goto out;
	}
	err = enforcer__open(parent_fd, false, true, false, false, &enf, &perr);
	if (err) {
		fprintf(stderr, "rf-lsmctl: enforcer: %s\n", rf_error_str(&perr, why, sizeof(why)));
		goto out;
	}
	snprintf(name, sizeof(name), "lsmctl-%d", getpid());
	err = cgroup__create(mount, name, &cg);
	if (err) {
		fprintf(stderr, "rf-lsmctl: cgroup: %s\n", strerror(-err));
		goto out;
	}
	err = sbmaps__install(enf, cg.id, flags, NULL, 0, policy, NULL, NULL);
	if (err) {
		fprintf(stderr, "rf-lsmctl: install: %s\n", strerror(-err));
		goto out;
	}
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", cg.path);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		goto out_maps;
	if (pid == 0) {
		int fd = open(procs, O_WRONLY | O_CLOEXEC);

		if (fd < 0 || write(fd, "0", 1) != 1) {
			perror("rf-lsmctl: enter the cgroup");
			_exit(125);
		}
		close(fd);
		execvp(argv[optind + 2], &argv[optind + 2]);
		fprintf(stderr, "rf-lsmctl: exec %s: %s\n", argv[optind + 2], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

	if (!sbmaps__read_sandbox(enf, cg.id, &st)) {
		uint64_t seq, total = 0;

		for (int c = 0; c < RF_CLASS_KERNEL_MAX; c++)
			total += st.denials[c];
		if (trace_path) {
			int sfd = sbmaps__samples_open(enf, cg.id);

			tf = fopen(trace_path, "w");
			for (seq = 0; tf && seq < st.deny_seq && seq < RF_SAMPLE_LIMIT_DEFAULT; seq++) {
				struct rf_event ev;
				json_t *o;
				char *line;

				if (sbmaps__read_sample(sfd, cg.id, seq, &ev))
					continue;
				o = trace__event_json(&ev);
				line = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
				if (line)
					fprintf(tf, "%s\n", line);
				free(line);
				json_decref(o);
			}
			if (tf)
				fclose(tf);
			if (sfd >= 0)
				close(sfd);
		}
		fprintf(stderr, "rf-lsmctl: denials %llu (file %llu, exec %llu, unix %llu, process %llu)\n",
			(unsigned long long)total,
			(unsigned long long)st.denials[RF_CLASS_FILE],
			(unsigned long long)st.denials[RF_CLASS_EXEC],
			(unsigned long long)st.denials[RF_CLASS_UNIX],
			(unsigned long long)st.denials[RF_CLASS_PROCESS]);
	}
out_maps:
	cgroup__destroy(&cg);
	sbmaps__remove(enf, cg.id);
out:
	enforcer__close(enf);
	policy__free(policy);
	return rc;
}
