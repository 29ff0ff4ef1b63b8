/*
 * skills.c - skills/list, skills/get, resources/directory/read and the
 * reading of skill files (io.modelcontextprotocol/skills)
 *
 * ext-skills/skills.mdx.  Everything but a file's bytes was built at
 * load (setup/skills.c): a skills/list page, a skills/get or a
 * directory read touches no file.  resources/read of a skill file reads
 * that one file and serves it only if it still has the size and the
 * SHA-256 its entry publishes; a file changed since the load is an
 * internal error (the operator reloads), never content that fails the
 * host's verification.
 *
 * Cache hints: a skill is the same for everyone who asks, so skills/list,
 * skills/get and the reads of skill files are public, with the default
 * ttlMs.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "methods/methods.h"

/* Without skills, the methods do not exist (404, -32601). */
static int
gated(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	if (ctx->srv->skills.nskills > 0)
		return 0;
	wymcp__reply_no_method(ctx, r, 404);
	return 1;
}

/* params.uri, or NULL after replying -32602. */
static const char *
param_uri(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	struct json_object	*v;

	if (!json_object_object_get_ex(ctx->req.params, "uri", &v) ||
	    !json_object_is_type(v, json_type_string)) {
		wymcp__reply_invalid(ctx, r,
		    "Invalid params: uri must be a string");
		return NULL;
	}
	return json_object_get_string(v);
}

static int
skill_cmp(const void *key, const void *elt)
{
	return strcmp(key, ((const struct wymcp__skill *)elt)->uri);
}

static int
dir_cmp(const void *key, const void *elt)
{
	return strcmp(key, ((const struct wymcp__skill_dir *)elt)->uri);
}

static int
file_cmp(const void *key, const void *elt)
{
	return strcmp(key, ((const struct wymcp__skill_file *)elt)->uri);
}

/* The skill file of `uri', or NULL. */
const struct wymcp__skill_file *
wymcp__skill_file_find(const struct wymcp_server *srv, const char *uri)
{
	if (srv->skills.nfiles == 0)
		return NULL;
	return bsearch(uri, srv->skills.files, srv->skills.nfiles,
	    sizeof(*srv->skills.files), file_cmp);
}

/* -32602 naming what the client sent, quoted and cut. */
static void
reply_unknown(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    const char *uri, int dir)
{
	const char	*q, *msg = NULL;

	if ((q = wymcp__quote(&ctx->arena, uri, strlen(uri))) != NULL)
		msg = dir ? wymcp_printf(ctx, "%s is not a directory "
		    "resource", q) : wymcp_printf(ctx, "No skill is served "
		    "at %s", q);
	wymcp__reply_invalid(ctx, r, msg);
}

/* Skill i, for wymcp__list_reply(). */
static void
skill_at(const void *arg, size_t i, struct json_object **listing,
    const unsigned char **digest)
{
	const struct wymcp__skill *tab = arg;

	*listing = tab[i].entry;
	*digest = tab[i].digest;
}

/* Child i of a directory, for wymcp__list_reply(). */
static void
child_at(const void *arg, size_t i, struct json_object **listing,
    const unsigned char **digest)
{
	const struct wymcp__skill_child *tab = arg;

	*listing = tab[i].listing;
	*digest = tab[i].digest;
}

/* skills/list (skills.mdx "Listing Skills"): paged, every entry whole. */
void
wymcp__skills_list(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	struct wymcp__list	 l;

	if (gated(ctx, r))
		return;
	memset(&l, 0, sizeof(l));
	l.kind = "skills";
	l.n = ctx->srv->skills.nskills;
	l.at = skill_at;
	l.arg = ctx->srv->skills.skills;
	l.ttl = WYMCP__TTL_MS;
	wymcp__list_reply(ctx, r, &l);
}

/* skills/get (skills.mdx "Getting a Skill"). */
void
wymcp__skills_get(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	const struct wymcp__skill *sk;
	struct json_object	*res;
	const char		*uri;

	if (gated(ctx, r) || (uri = param_uri(ctx, r)) == NULL)
		return;
	sk = bsearch(uri, ctx->srv->skills.skills, ctx->srv->skills.nskills,
	    sizeof(*sk), skill_cmp);
	if (sk == NULL) {
		reply_unknown(ctx, r, uri, 0);
		return;
	}
	if ((res = wymcp__result_object()) == NULL ||
	    json_object_object_add(res, "skill", json_object_get(sk->entry))) {
		json_object_put(res);
		wymcp__reply_nomem(ctx, r);
		return;
	}
	wymcp__cache_hints_ttl(res, WYMCP__TTL_MS, 0);
	wymcp__reply_result(ctx, r, res);
}

/*
 * resources/directory/read (skills.mdx "Reading Directories"): the
 * direct children of a skill directory, paged as resources/list.
 */
void
wymcp__directory_read(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	const struct wymcp__skill_dir *d;
	struct wymcp__list	 l;
	const char		*uri;

	if (gated(ctx, r) || (uri = param_uri(ctx, r)) == NULL)
		return;
	d = bsearch(uri, ctx->srv->skills.dirs, ctx->srv->skills.ndirs,
	    sizeof(*d), dir_cmp);
	if (d == NULL) {
		reply_unknown(ctx, r, uri, 1);
		return;
	}
	memset(&l, 0, sizeof(l));
	l.kind = "resources";
	l.n = d->nchildren;
	l.at = child_at;
	l.arg = d->children;
	l.ttl = WYMCP__TTL_MS;
	wymcp__list_reply(ctx, r, &l);
}

/*
 * Read skill file f whole into a new buffer, checked against its size
 * and digest.  0, or -1 with the reason logged.
 */
static int
read_file(struct wymcp_ctx *ctx, const struct wymcp__skill_file *f,
    unsigned char **buf)
{
	unsigned char	 sha[32];
	struct stat	 st;
	ssize_t		 n;
	size_t		 got = 0;
	int		 fd;

	*buf = NULL;
	if ((fd = open(f->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1) {
		wymcp__ctx_log(ctx, WYMCP_LOG_ERR, "skill file %s: %s",
		    f->path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size != f->size)
		goto changed;
	if ((*buf = malloc(f->size + 1)) == NULL) {
		wymcp__ctx_log(ctx, WYMCP_LOG_ERR, "out of memory");
		goto fail;
	}
	while (got < f->size) {
		n = read(fd, *buf + got, f->size - got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			goto changed;
		got += (size_t)n;
	}
	(*buf)[got] = '\0';
	crypto_hash_sha256(sha, *buf, got);
	if (sodium_memcmp(sha, f->sha, sizeof(sha)) != 0)
		goto changed;
	close(fd);
	return 0;
changed:
	wymcp__ctx_log(ctx, WYMCP_LOG_ERR, "skill file %s changed since the "
	    "skills were loaded (reload to serve it)", f->path);
fail:
	free(*buf);
	*buf = NULL;
	close(fd);
	return -1;
}

/*
 * resources/read of a skill file: {uri, mimeType, text} for UTF-8,
 * else {uri, mimeType, blob} (base64).
 */
void
wymcp__skill_read(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    const struct wymcp__skill_file *f)
{
	struct json_object	*res = NULL, *arr, *c;
	unsigned char		*buf;
	char			*b64 = NULL;
	size_t			 b64len;

	if (read_file(ctx, f, &buf) != 0) {
		wymcp__reply_error(ctx, r, 500, WYMCP__INTERNAL_ERROR,
		    "Internal error: the skill file could not be read", NULL);
		return;
	}
	if ((res = wymcp__result_object()) == NULL ||
	    (arr = json_object_new_array()) == NULL ||
	    wymcp__put_new(res, "contents", arr) ||
	    (c = json_object_new_object()) == NULL ||
	    json_object_array_add(arr, c) ||
	    wymcp__put_str(c, "uri", f->uri) ||
	    wymcp__put_str(c, "mimeType", f->mime))
		goto nomem;
	if (f->text) {
		if (wymcp__put_new(c, "text", json_object_new_string_len(
		    (char *)buf, (int)f->size)))
			goto nomem;
	} else {
		b64len = sodium_base64_encoded_len(f->size,
		    sodium_base64_VARIANT_ORIGINAL);
		if ((b64 = malloc(b64len)) == NULL)
			goto nomem;
		sodium_bin2base64(b64, b64len, buf, f->size,
		    sodium_base64_VARIANT_ORIGINAL);
		if (wymcp__put_new(c, "blob", json_object_new_string(b64)))
			goto nomem;
		free(b64);
	}
	free(buf);
	wymcp__cache_hints_ttl(res, WYMCP__TTL_MS, 0);
	wymcp__reply_result(ctx, r, res);
	return;
nomem:
	free(b64);
	free(buf);
	json_object_put(res);
	wymcp__reply_nomem(ctx, r);
}
