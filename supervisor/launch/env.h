/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The sandbox environment, built from nothing. */
#ifndef RF_ENV_H
#define RF_ENV_H

#include <stddef.h>
#include "policy/policy.h"

/* Build the child's environment: only policy->env_pass names copied from
 * parent_env (when present there), then policy->env_set added (set wins).
 * Nothing else passes. *ret_envp is a NULL-terminated array owned by the
 * caller (env__free). Returns 0 or -ENOMEM. */
int env__build(const struct rf_policy *policy, char *const *parent_env,
	       char ***ret_envp);
void env__free(char **envp);

/* The value of name in envp, or NULL. */
const char *env__get(char *const *envp, const char *name);

#endif
