/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Policy v1: load (file or string), check the document root, canonical form + sha256, free. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <jansson.h>
#include <nettle/sha2.h>

#include "util/heap.h"
#include "policy.h"
#include "policy_internal.h"

#define POL_MAX_BYTES RF_POLICY_MAX_BYTES

static bool pol_is_id(const char *s)
{
	size_t i, len = strlen(s);

	if (len < 1 || len > RF_POLICY_ID_MAX)
		return false;
	for (i = 0; i < len; i++) {
		bool alnum = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9');

		if (!alnum && (i == 0 || s[i] != '-'))
			return false;
	}
	return true;
}

static int pol_parse_id(json_t *root, struct rf_policy *p, struct rf_error *err)
{
	json_t *v;
	const char *s;
	int r;

	r = policy_json__required(root, "$", "id", &v, err);
	if (r == 0)
		r = policy_json__get_string(v, "$.id", &s, err);
	if (r < 0)
		return r;
	if (!pol_is_id(s))
		return policy_json__fail(err, "$.id", "id must match [a-z0-9][a-z0-9-]{0,62}");
	snprintf(p->id, sizeof(p->id), "%s", s);
	return 0;
}

static int pol_parse_root(json_t *root, struct rf_policy *p, struct rf_error *err)
{
	static const char *const keys[] = { "version", "id", "mode", "approximate", "files",
					     "exec", "network", "env", "limits", "syscalls",
					     "monitor", "memory", NULL };
	static const char *const modes[] = { "enforce", "audit" };
	json_t *v;
	int r;

	if (!json_is_object(root))
		return policy_json__fail(err, "$", "expected an object");

	/* The version first: a newer policy should say so rather than
	 * fail on the first key this parser does not know. */
	r = policy_json__required(root, "$", "version", &v, err);
	if (r < 0)
		return r;
	if (!json_is_integer(v))
		return policy_json__fail(err, "$.version", "expected an integer");
	if (json_integer_value(v) != 1)
		return policy_json__fail(err, "$.version", "unsupported version %lld (expected 1)",
					 (long long)json_integer_value(v));
	p->version = 1;

	/* Each member on its own: every bad one is reported in one pass. */
	r = policy_json__check_keys(root, "$", keys, err);
	if (r < 0)
		return r;
	r = policy_json__collect(err, pol_parse_id(root, p, err));
	if (r < 0)
		return r;
	r = policy_json__get_choice(root, "mode", "$.mode", modes, 2, err);
	p->mode = r == 1 ? RF_MODE_AUDIT : RF_MODE_ENFORCE;  /* absent (2): enforce */
	r = policy_json__collect(err, r < 0 ? r : 0);
	if (r < 0)
		return r;

	v = json_object_get(root, "approximate");
	if (v && !json_is_boolean(v))
		r = policy_json__fail(err, "$.approximate", "expected true or false");
	p->approximate = v && json_is_true(v);
	r = policy_json__collect(err, r);
	if (r < 0)
		return r;

	return policy_classes__parse(root, p, err);
}

/* The canonical text as jansson writes it, chunk by chunk: hashed as it
 * goes, and kept only when asked for (a test, the fuzzer). */
struct pol_digest {
	struct sha256_ctx ctx;
	char *text;             /* NULL: not kept */
	size_t len, cap;
	bool keep;
};

static int pol_digest_chunk(const char *buf, size_t n, void *data)
{
	struct pol_digest *d = data;
	char *grown;

	sha256_update(&d->ctx, n, (const uint8_t *)buf);
	if (!d->keep)
		return 0;
	if (d->len + n + 1 > d->cap) {
		d->cap = (d->len + n + 1) * 2;
		grown = realloc(d->text, d->cap);
		if (!grown)
			return -1;
		d->text = grown;
	}
	memcpy(d->text + d->len, buf, n);
	d->len += n;
	d->text[d->len] = 0;
	return 0;
}

/* Canonical text: the validated document with defaults made explicit,
 * keys sorted, no whitespace, ASCII only; digest = sha256 of it. Hashed
 * while jansson writes it: the text itself (megabytes at 100,000 rules,
 * used by nothing at run time) is never built unless ret_text asks. */
static int pol_canonicalise(json_t *root, struct rf_policy *p, char **ret_text,
			    struct rf_error *err)
{
	struct pol_digest d = { .keep = ret_text != NULL };
	uint8_t md[SHA256_DIGEST_SIZE];
	unsigned int i;

	if (!json_object_get(root, "mode") &&
	    json_object_set_new(root, "mode", json_string("enforce")) < 0)
		return policy_json__nomem(err);
	if (policy_vars__escape(root) < 0)
		return policy_json__nomem(err);
	/* nettle, not libcrypto: no library initialisation on the start-up
	 * path; and not libmd: nettle uses the CPU's SHA instructions (4-7x
	 * faster, ~10 ms of 3 MB of canonical text at 100,000 rules) */
	sha256_init(&d.ctx);
	if (json_dump_callback(root, pol_digest_chunk, &d,
			       JSON_SORT_KEYS | JSON_COMPACT | JSON_ENSURE_ASCII)) {
		free(d.text);
		return policy_json__nomem(err);
	}
	sha256_digest(&d.ctx, sizeof(md), md);
	for (i = 0; i < sizeof(md); i++)
		snprintf(p->digest + 2 * i, 3, "%02x", md[i]);
	if (ret_text)
		*ret_text = d.text;
	return 0;
}

/* A raw NUL byte is an error wherever it is: jansson stops a number,
 * true or false at one and would accept "1\0" as 1. */
static int pol_refuse_nul(const char *buf, size_t len, struct rf_error *err)
{
	const char *nul = memchr(buf, '\0', len);
	size_t line = 1, col = 1;

	if (!nul)
		return 0;
	for (const char *c = buf; c < nul; c++, col++)
		if (*c == '\n')
			line++, col = 0;
	return policy_json__fail(err, "$", "line %zu column %zu: NUL byte "
				 "(NUL bytes are not allowed anywhere in a policy)", line, col);
}

/* The document's errors into err (the first) and all (every one). */
static int pol_parse_document(json_t *root, struct rf_policy *p, struct rf_error *err,
			      struct rf_policy_errors *all)
{
	/* 20 KiB of room for errors a valid policy never writes: only what
	 * is read is set (the entries up to all.n), no page zeroed for it */
	struct pol_errors *pe = malloc(sizeof(*pe));
	int r;

	if (!pe)
		return policy_json__nomem(err);
	memset(&pe->cur, 0, sizeof(pe->cur));
	pe->all.n = 0;
	pe->all.truncated = pe->full = false;
	r = policy_json__collect(&pe->cur, policy_vars__apply(root, p, &pe->cur));
	if (r == 0)
		r = policy_json__collect(&pe->cur, pol_parse_root(root, p, &pe->cur));
	if (r == 0)
		r = policy_json__collected(&pe->cur);
	*err = pe->cur;
	if (all) {
		all->n = pe->all.n;
		all->truncated = pe->all.truncated;
		memcpy(all->v, pe->all.v, pe->all.n * sizeof(pe->all.v[0]));
	}
	free(pe);
	return r;
}

static int pol_load_buffer(const char *buf, size_t len, struct rf_policy **ret_policy,
			   struct rf_error *err, struct rf_policy_errors *all, char **ret_text)
{
	struct rf_policy *p = NULL;
	json_error_t jerr;
	json_t *root = NULL;
	int r;

	if (len > POL_MAX_BYTES) {
		snprintf(err->where, sizeof(err->where), "$");
		snprintf(err->why, sizeof(err->why), "policy larger than %d MiB (%d bytes)",
			 POL_MAX_BYTES >> 20, POL_MAX_BYTES);
		return -EFBIG;
	}
	r = pol_refuse_nul(buf, len, err);
	if (r < 0)
		return r;
	/* ALLOW_NUL so that "\u0000" is seen and refused, not truncated. */
	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr);
	if (!root) {
		if (json_error_code(&jerr) == json_error_out_of_memory) {
			r = policy_json__nomem(err);
			goto cleanup;
		}
		r = policy_json__fail(err, "$", "line %d column %d: %s", jerr.line,
				      jerr.column, jerr.text);
		/* jansson quotes raw input ("near '...'"): keep control
		 * bytes from the file off the terminal. */
		for (char *c = err->why; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = '?';
		goto cleanup;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		r = policy_json__nomem(err);
		goto cleanup;
	}
	r = pol_parse_document(root, p, err, all);
	if (r < 0)
		goto cleanup;
	r = pol_canonicalise(root, p, ret_text, err);
	if (r < 0)
		goto cleanup;
	*ret_policy = p;
	p = NULL;
cleanup:
	policy__free(p);
	json_decref(root);
	return r;
}

/* What both loaders check first: err cleared, *ret_policy NULL; -EINVAL
 * without ret_policy, the error none without input. */
static int pol_load_begin(struct rf_error *err, struct rf_policy **ret_policy, const void *input,
			  const char *none)
{
	memset(err, 0, sizeof(*err));
	if (!ret_policy)
		return -EINVAL;
	*ret_policy = NULL;
	return input ? 0 : policy_json__fail(err, "$", "%s", none);
}

int policy__load_string(const char *json, struct rf_policy **ret_policy,
			struct rf_error *err)
{
	struct rf_error dummy;
	int r;

	if (!err)
		err = &dummy;
	r = pol_load_begin(err, ret_policy, json, "no policy text");
	if (r < 0)
		return r;
	/* strnlen: a huge string is refused without scanning all of it. */
	return pol_load_buffer(json, strnlen(json, POL_MAX_BYTES + 1), ret_policy, err, NULL,
			       NULL);
}

int policy__canonical_text(const char *json, char **ret_text, struct rf_error *err)
{
	struct rf_policy *p = NULL;
	struct rf_error dummy;
	int r;

	if (!err)
		err = &dummy;
	if (!ret_text)
		return -EINVAL;
	*ret_text = NULL;
	r = pol_load_begin(err, &p, json, "no policy text");
	if (r == 0)
		r = pol_load_buffer(json, strnlen(json, POL_MAX_BYTES + 1), &p, err, NULL,
				    ret_text);
	policy__free(p);
	return r;
}

int policy__load_file(const char *file, struct rf_policy **ret_policy,
		      struct rf_error *err)
{
	return policy__load_file_all(file, ret_policy, err, NULL);
}

/*
 * All of fd, up to one byte past the size cap (which tells "too large"
 * from "exactly the limit"), in a buffer the size of the file when it is
 * a regular one, grown as it fills otherwise (a pipe, /dev/stdin): not a
 * 32 MiB mapping per run.
 */
static int pol_read_all(int fd, char **ret_buf, size_t *ret_len)
{
	const size_t max = (size_t)POL_MAX_BYTES + 1;
	size_t cap = 64 << 10, len = 0;
	struct stat st;
	char *buf;

	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		cap = (size_t)st.st_size < max ? (size_t)st.st_size + 1 : max;
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		if (len == cap && cap < max) {
			size_t c = cap * 2 < max ? cap * 2 : max;
			char *b = realloc(buf, c);

			if (!b) {
				free(buf);
				return -ENOMEM;
			}
			buf = b;
			cap = c;
		}
		if (len == cap)
			break;
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = -errno;

			free(buf);
			return e;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	*ret_buf = buf;
	*ret_len = len;
	return 0;
}

int policy__load_file_all(const char *file, struct rf_policy **ret_policy,
			  struct rf_error *err, struct rf_policy_errors *ret_all)
{
	struct rf_error dummy;
	char *buf = NULL;
	size_t len = 0;
	int fd = -1, r;

	if (!err)
		err = &dummy;
	if (ret_all) {
		ret_all->n = 0;         /* v[] is read up to n */
		ret_all->truncated = false;
	}
	r = pol_load_begin(err, ret_policy, file, "no policy file");
	if (r < 0)
		return r;

	fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		r = -errno;
		goto io_error;
	}
	r = pol_read_all(fd, &buf, &len);
	if (r == -ENOMEM) {
		r = policy_json__nomem(err);
		goto cleanup;
	}
	if (r < 0)
		goto io_error;
	if (len > POL_MAX_BYTES) {
		snprintf(err->where, sizeof(err->where), "%s", file);
		snprintf(err->why, sizeof(err->why),
			 "policy file larger than %d MiB (%d bytes)", POL_MAX_BYTES >> 20,
			 POL_MAX_BYTES);
		r = -EFBIG;
		goto cleanup;
	}
	/* What a large policy allocates next, from parse to its maps,
	 * some 16 bytes per byte of JSON (measured at 100,000 rules). */
	heap__prepare(len * 16);
	r = pol_load_buffer(buf, len, ret_policy, err, ret_all, NULL);
	goto cleanup;

io_error:
	snprintf(err->where, sizeof(err->where), "%s", file);
	snprintf(err->why, sizeof(err->why), "%s", strerror(-r));
cleanup:
	free(buf);
	if (fd >= 0)
		close(fd);
	return r;
}

/* own: the paths are allocations of their own (not in p->texts). */
static void pol_free_paths(struct rf_path_list *l, bool own)
{
	size_t i;

	for (i = 0; own && i < l->n; i++)
		free(l->v[i].path);
	free(l->v);
}

static void pol_free_strv(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void policy__free(struct rf_policy *p)
{
	bool own;
	size_t i;

	if (!p)
		return;
	/* A loaded policy's entry texts are in p->texts, freed whole. */
	own = !p->texts;
	pol_free_paths(&p->files_read, own);
	pol_free_paths(&p->files_write, own);
	pol_free_paths(&p->exec_paths, own);
	free(p->limits.scratch.path);
	/* Only the text is allocated (the name lives in it); clearing each
	 * entry before the array goes would write every page of it again. */
	for (i = 0; own && i < p->n_connect; i++)
		free(p->connect[i].text);
	free(p->connect);
	free(p->dns.upstream);
	free(p->dns.rebind_allow);
	for (i = 0; own && i < p->n_unix; i++) {
		free(p->unix_rules[i].text);
		free(p->unix_rules[i].name);
	}
	free(p->unix_rules);
	policy_json__texts_free(p);
	pol_free_strv(p->env_pass, p->n_env_pass);
	for (i = 0; i < p->n_env_set; i++) {
		free(p->env_set[i].name);
		free(p->env_set[i].value);
	}
	free(p->env_set);
	pol_free_strv(p->syscalls.allow, p->syscalls.n_allow);
	pol_free_strv(p->monitor.exec, p->monitor.n_exec);
	pol_free_strv(p->monitor.files, p->monitor.n_files);
	for (i = 0; i < p->n_vars; i++) {
		free(p->vars[i].name);
		free(p->vars[i].value);
	}
	free(p->vars);
	free(p);
}
