// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The libraries loaded on first use (lazylib.h). */
#include <dlfcn.h>
#include <stdio.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>

#define RF_LAZYLIB_NO_REDIRECT
#include "lazy_ldns.h"
#include "lazy_psl.h"
#include "lazy_systemd.h"

struct lazy_sym {
	const char *name;
	void **ptr;
};

struct lazy_lib {
	const char *soname;
	const struct lazy_sym *syms;
	size_t n;
	pthread_once_t once;
	int err;
	char why[200];
};

/* Every symbol or none: a library missing one is not loaded at all. */
static void lazy_open(struct lazy_lib *l)
{
	void *h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
	const char *msg;
	size_t i;

	if (!h)
		goto fail;
	for (i = 0; i < l->n; i++) {
		*l->syms[i].ptr = dlsym(h, l->syms[i].name);
		if (!*l->syms[i].ptr) {
			for (; i > 0; i--)
				*l->syms[i - 1].ptr = NULL;
			goto fail;
		}
	}
	return;         /* kept for the process's life */
fail:
	msg = dlerror();
	snprintf(l->why, sizeof(l->why), "%s", msg ? msg : l->soname);
	l->err = -ELIBACC;
	if (h)
		dlclose(h);
}

static int lazy_load(struct lazy_lib *l, void (*once)(void), struct rf_error *e)
{
	pthread_once(&l->once, once);
	if (!l->err)
		return 0;
	rf_error_set(e, l->err, "loading a library", "%s", l->why);
	rf_error_hint(e, "install the package that holds %s", l->soname);
	return l->err;
}

#define SYM(s) { #s, (void **)&rf_lazy_##s },
#define PTR(s) __typeof__(s) *rf_lazy_##s;
#define LAZY_LIB(name, NAME)                                                      \
	NAME##_SYMBOLS(PTR)                                                       \
	static const struct lazy_sym name##_syms[] = { NAME##_SYMBOLS(SYM) };     \
	static struct lazy_lib name##_lib = {                                     \
		.soname = NAME##_SONAME, .syms = name##_syms,                     \
		.n = sizeof(name##_syms) / sizeof(name##_syms[0]),               \
		.once = PTHREAD_ONCE_INIT,                                        \
	};                                                                        \
	static void name##_once(void)                                             \
	{                                                                         \
		lazy_open(&name##_lib);                                           \
	}                                                                         \
	int lazylib__##name(struct rf_error *e)                                   \
	{                                                                         \
		return lazy_load(&name##_lib, name##_once, e);                    \
	}

LAZY_LIB(ldns, RF_LAZY_LDNS)
LAZY_LIB(psl, RF_LAZY_PSL)
LAZY_LIB(systemd, RF_LAZY_SYSTEMD)
