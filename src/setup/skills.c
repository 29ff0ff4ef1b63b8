/*
 * skills.c - the skills loader (io.modelcontextprotocol/skills)
 *
 * ext-skills/skills.mdx: wymcp_server_load_skills() reads a directory
 * of skills once, before requests are served (and again when the
 * program builds a new server at a reload): each DIR/<name>/SKILL.md
 * with the files beside it, in subdirectories too, is one skill, served
 * as skill://<name>/<path> resources.  What a request needs is built
 * here: each skill's entry (frontmatter as JSON, every file's SHA-256
 * and size), each directory's children, and a resource for each file.
 * File contents are not kept: resources/read reads the one file asked
 * for and checks it against the digest taken here (methods/skills.c),
 * so a skill of 16 MiB costs no memory until it is read and what is
 * served is always what the entry describes.
 *
 * The rules, each refusal naming the file and the rule broken:
 *
 *	- a skill directory's name is its frontmatter name, which follows
 *	  the Agent Skills naming rules (1-64 of a-z, 0-9 and '-', no
 *	  '-' first, last or twice in a row); description 1-1024
 *	  characters; license, compatibility (500) and allowed-tools
 *	  strings, metadata a mapping of strings, when present;
 *	- file and directory names are letters, digits, '.', '_', '-'
 *	  and '~' (URI path segments as they are); names starting with
 *	  '.' are skipped; at the top of DIR only directories count;
 *	- a symbolic link must stay inside its skill (DIR's own entries:
 *	  inside DIR); only regular files and directories are served;
 *	- at most 512 files and 16 MiB per skill (skills.mdx "Limits"),
 *	  SKILL.md UTF-8, its frontmatter within 64 KiB; directories at
 *	  most 8 deep; at most 4096 skills.
 *
 * A SKILL.md below a skill's root is one of its files (a nested skill
 * is not published as a skill of its own).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>
#include <sodium.h>

#include "setup/setup.h"

#define SKILL_FILES	512
#define SKILL_BYTES	(16 * 1024 * 1024)
#define SKILL_DEPTH	8
#define SKILLS_MAX	4096
#define FM_BYTES	(64 * 1024)

/* What one load builds, freed as one on failure. */
struct load {
	struct wymcp_server	*srv;
	struct wymcp__skills	 s;
	size_t			 capskills, capfiles, capdirs;
	/* The skill being read: */
	const char		*name;
	char			*root;		/* its realpath */
	size_t			 nfiles;	/* its files so far */
	uint64_t		 bytes;		/* their sizes' sum */
	struct json_object	*res;		/* its resources array */
};

static enum wymcp_err
refuse(struct load *ld, const char *path, const char *rule)
{
	wymcp__seterr(ld->srv, "skills: %s: %s", path, rule);
	return WYMCP_ERR_INVAL;
}

static enum wymcp_err
nomem(struct load *ld)
{
	wymcp__seterr(ld->srv, "skills: out of memory");
	return WYMCP_ERR_NOMEM;
}

/* The Agent Skills name rules. */
int
wymcp__skill_name_ok(const char *s)
{
	size_t	 i, n = strlen(s);

	if (n == 0 || n > 64 || s[0] == '-' || s[n - 1] == '-')
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= '0' && s[i] <= '9') ||
		    (s[i] == '-' && s[i + 1] != '-')))
			return 0;
	return 1;
}

/* A file or directory name served as a URI path segment unescaped. */
static int
segment_ok(const char *s)
{
	for (; *s != '\0'; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || strchr("._-~", *s) != NULL))
			return 0;
	return 1;
}

/* The mimeType of a file by its name; text/plain or octet-stream. */
static const char *
mime_of(const char *name, int text)
{
	static const char *const tab[][2] = {
		{ ".md", "text/markdown" }, { ".markdown", "text/markdown" },
		{ ".txt", "text/plain" }, { ".py", "text/x-python" },
		{ ".sh", "text/x-shellscript" },
		{ ".json", "application/json" },
		{ ".yaml", "application/yaml" }, { ".yml", "application/yaml" },
		{ ".html", "text/html" }, { ".csv", "text/csv" },
		{ ".js", "text/javascript" }, { ".xml", "application/xml" },
		{ ".png", "image/png" }, { ".jpg", "image/jpeg" },
		{ ".jpeg", "image/jpeg" }, { ".gif", "image/gif" },
		{ ".svg", "image/svg+xml" }, { ".pdf", "application/pdf" },
	};
	const char	*dot = strrchr(name, '.');
	size_t		 i;

	for (i = 0; dot != NULL && i < sizeof(tab) / sizeof(tab[0]); i++)
		if (strcmp(dot, tab[i][0]) == 0)
			return tab[i][1];
	return text ? "text/plain" : "application/octet-stream";
}

/* Is `path' (a realpath) `root' or below it? */
static int
inside(const char *root, const char *path)
{
	size_t	 n = strlen(root);

	return strncmp(root, path, n) == 0 && (path[n] == '\0' ||
	    path[n] == '/');
}

/*
 * Read a whole regular file (at most `max' bytes) into a new buffer
 * (NUL-terminated).  0, or -1 with the reason.
 */
static int
slurp(const char *path, size_t max, char **buf, size_t *len,
    const char **why)
{
	struct stat	 st;
	ssize_t		 n;
	size_t		 got = 0;
	int		 fd;

	*buf = NULL;
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1) {
		*why = strerror(errno);
		return -1;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		*why = "not a regular file";
		goto fail;
	}
	if ((uint64_t)st.st_size > max) {
		*why = "larger than the 16 MiB a skill may hold";
		goto fail;
	}
	if ((*buf = malloc((size_t)st.st_size + 1)) == NULL) {
		*why = "out of memory";
		goto fail;
	}
	while (got < (size_t)st.st_size) {
		n = read(fd, *buf + got, (size_t)st.st_size - got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			*why = n == 0 ? "changed while read" :
			    strerror(errno);
			goto fail;
		}
		got += (size_t)n;
	}
	(*buf)[got] = '\0';
	*len = got;
	close(fd);
	return 0;
fail:
	free(*buf);
	*buf = NULL;
	close(fd);
	return -1;
}

/*
 * A new slot at the end of the growing array whose pointer is at
 * `arrp' (any object pointer type: read and written as bytes).
 */
static void *
grow(void *arrp, size_t n, size_t *cap, size_t size)
{
	void	*arr, *na;

	memcpy(&arr, arrp, sizeof(arr));
	if (n == *cap) {
		if ((na = reallocarray(arr, *cap ? *cap * 2 : 16,
		    size)) == NULL)
			return NULL;
		*cap = *cap ? *cap * 2 : 16;
		arr = na;
		memcpy(arrp, &arr, sizeof(arr));
	}
	return (char *)arr + n * size;
}

/* The frontmatter rules (Agent Skills specification, field by field). */
static enum wymcp_err
check_frontmatter(struct load *ld, const char *path, struct json_object *fm)
{
	static const char *const strs[] = { "license", "compatibility",
	    "allowed-tools" };
	struct json_object	*v;
	const char		*name, *desc;
	size_t			 i;

	if (!json_object_object_get_ex(fm, "name", &v) ||
	    !json_object_is_type(v, json_type_string))
		return refuse(ld, path, "the frontmatter has no name string");
	name = json_object_get_string(v);
	if (!wymcp__skill_name_ok(name))
		return refuse(ld, path, "name must be 1 to 64 characters of "
		    "a-z, 0-9 and '-', without '-' first, last or twice in a "
		    "row");
	if (strcmp(name, ld->name) != 0)
		return refuse(ld, path, "name must be the name of the "
		    "skill's directory");
	if (!json_object_object_get_ex(fm, "description", &v) ||
	    !json_object_is_type(v, json_type_string) ||
	    (desc = json_object_get_string(v))[0] == '\0')
		return refuse(ld, path, "the frontmatter has no description "
		    "string");
	if (strlen(desc) > 1024)
		return refuse(ld, path, "description is longer than 1024 "
		    "characters");
	for (i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (json_object_object_get_ex(fm, strs[i], &v) &&
		    !json_object_is_type(v, json_type_string)) {
			wymcp__seterr(ld->srv, "skills: %s: %s must be a "
			    "string", path, strs[i]);
			return WYMCP_ERR_INVAL;
		}
	if (json_object_object_get_ex(fm, "compatibility", &v) &&
	    strlen(json_object_get_string(v)) > 500)
		return refuse(ld, path, "compatibility is longer than 500 "
		    "characters");
	if (json_object_object_get_ex(fm, "metadata", &v)) {
		if (!json_object_is_type(v, json_type_object))
			return refuse(ld, path, "metadata must be a mapping");
		json_object_object_foreach(v, k, mv) {
			(void)k;
			if (!json_object_is_type(mv, json_type_string))
				return refuse(ld, path, "metadata values "
				    "must be strings");
		}
	}
	return WYMCP_OK;
}

/*
 * One file of the skill: `path' on disk, `rel' its path in the skill.
 * Read once for its digest and size (SKILL.md: for its frontmatter
 * too, into *fm).
 */
static enum wymcp_err
add_file(struct load *ld, const char *path, const char *rel,
    struct json_object **fm)
{
	struct wymcp__skill_file *f;
	struct json_object	*o;
	const char		*why;
	char			*buf, err[256], hex[65], d[72];
	size_t			 len, body;
	enum wymcp_err		 rc = WYMCP_OK;

	if (++ld->nfiles > SKILL_FILES)
		return refuse(ld, path, "a skill holds at most 512 files");
	if (slurp(path, SKILL_BYTES, &buf, &len, &why) != 0) {
		wymcp__seterr(ld->srv, "skills: %s: %s", path, why);
		return strcmp(why, "out of memory") == 0 ? WYMCP_ERR_NOMEM :
		    WYMCP_ERR_INVAL;
	}
	ld->bytes += len;
	if (ld->bytes > SKILL_BYTES) {
		free(buf);
		return refuse(ld, path, "a skill holds at most 16 MiB");
	}
	if ((f = grow(&ld->s.files, ld->s.nfiles, &ld->capfiles,
	    sizeof(*f))) == NULL) {
		free(buf);
		return nomem(ld);
	}
	memset(f, 0, sizeof(*f));
	f->text = memchr(buf, '\0', len) == NULL &&
	    wymcp__utf8_valid(buf, len);
	f->size = len;
	crypto_hash_sha256(f->sha, (unsigned char *)buf, len);
	f->path = strdup(path);
	f->uri = malloc(strlen(ld->name) + strlen(rel) + 10);
	if (f->path == NULL || f->uri == NULL) {
		free(f->path);
		free(f->uri);
		free(buf);
		return nomem(ld);
	}
	snprintf(f->uri, strlen(ld->name) + strlen(rel) + 10, "skill://%s/%s",
	    ld->name, rel);
	f->mime = mime_of(rel, f->text);
	ld->s.nfiles++;
	if (fm != NULL) {
		if (!f->text)
			rc = refuse(ld, path, "SKILL.md must be UTF-8 text");
		else if (wymcp__frontmatter(buf, len < FM_BYTES ? len :
		    FM_BYTES, fm, &body, err, sizeof(err)) != 0) {
			wymcp__seterr(ld->srv, "skills: %s: %s", path, err);
			rc = strcmp(err, "out of memory") == 0 ?
			    WYMCP_ERR_NOMEM : WYMCP_ERR_INVAL;
		}
	}
	free(buf);
	if (rc != WYMCP_OK)
		return rc;
	sodium_bin2hex(hex, sizeof(hex), f->sha, sizeof(f->sha));
	memcpy(d, "sha256:", 7);
	memcpy(d + 7, hex, sizeof(hex));
	if ((o = json_object_new_object()) == NULL ||
	    json_object_array_add(ld->res, o) != 0) {
		json_object_put(o);
		return nomem(ld);
	}
	if (wymcp__put_str(o, "uri", f->uri) ||
	    wymcp__put_str(o, "digest", d) ||
	    wymcp__put_new(o, "size", json_object_new_int64((int64_t)len)))
		return nomem(ld);
	return WYMCP_OK;
}

/* The listing of a child `nm' of directory `di'. */
static enum wymcp_err
add_child(struct load *ld, size_t di, const char *nm, const char *mime)
{
	struct wymcp__skill_dir	*d = &ld->s.dirs[di];
	struct wymcp__skill_child *c;
	struct json_object	*l;
	char			*u;
	int			 bad;

	if ((c = grow(&d->children, d->nchildren, &d->cap,
	    sizeof(*c))) == NULL)
		return nomem(ld);
	memset(c, 0, sizeof(*c));
	if ((l = json_object_new_object()) == NULL)
		return nomem(ld);
	c->listing = l;
	d->nchildren++;
	if ((u = malloc(strlen(d->uri) + strlen(nm) + 2)) == NULL)
		return nomem(ld);
	snprintf(u, strlen(d->uri) + strlen(nm) + 2, "%s/%s", d->uri, nm);
	bad = wymcp__put_str(l, "uri", u) || wymcp__put_str(l, "name", nm) ||
	    wymcp__put_str(l, "mimeType", mime) ||
	    wymcp__listing_digest(l, c->digest);
	free(u);
	return bad ? nomem(ld) : WYMCP_OK;
}

/* Sort a scandir list by name (the C locale: byte order). */
static int
byname(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static enum wymcp_err add_dir(struct load *, const char *, const char *,
		    int);

/*
 * The child `nm' of the skill's directory `path' (`rel' in the skill,
 * entry `di' of the directory table, `depth' deep): checked (its name,
 * inside the skill, a file or a directory not writable by all), added
 * (a file, or a directory recursively) and listed in its directory.
 */
static enum wymcp_err
add_entry(struct load *ld, size_t di, const char *path, const char *rel,
    const char *nm, int depth)
{
	struct stat	 st;
	char		 sub[PATH_MAX], subrel[PATH_MAX], *real;
	int		 isdir = 0;
	enum wymcp_err	 rc;

	if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", path, nm) >=
	    sizeof(sub) || (size_t)snprintf(subrel, sizeof(subrel),
	    "%s%s%s", rel, *rel ? "/" : "", nm) >= sizeof(subrel))
		return refuse(ld, path, "a path longer than PATH_MAX");
	if (!segment_ok(nm))
		return refuse(ld, sub, "names in a skill are letters, digits, "
		    "'.', '_', '-' and '~' (URI path segments)");
	if ((real = realpath(sub, NULL)) == NULL) {
		wymcp__seterr(ld->srv, "skills: %s: %s", sub,
		    strerror(errno));
		return WYMCP_ERR_INVAL;
	}
	/* All errors from here on free real. */
	if (!inside(ld->root, real) || strcmp(ld->root, real) == 0)
		rc = refuse(ld, sub, "a symbolic link leading out of its "
		    "skill");
	else if (stat(real, &st) == -1 || !(S_ISREG(st.st_mode) ||
	    S_ISDIR(st.st_mode)))
		rc = refuse(ld, sub, "not a regular file nor a directory");
	else if (st.st_mode & S_IWOTH)
		rc = refuse(ld, sub, "writable by every user: anyone could "
		    "change what agents are told");
	else if ((isdir = S_ISDIR(st.st_mode)))
		rc = add_dir(ld, real, subrel, depth + 1);
	else if (*rel == '\0' && strcmp(nm, "SKILL.md") == 0) {
		/* Read first, by load_skill(): its listing only. */
		free(real);
		return add_child(ld, di, nm, "text/markdown");
	} else
		rc = add_file(ld, real, subrel, NULL);
	free(real);
	if (rc != WYMCP_OK)
		return rc;
	/* The child's listing (a Resource), in this directory. */
	return add_child(ld, di, nm, isdir ? "inode/directory" :
	    ld->s.files[ld->s.nfiles - 1].mime);
}

/*
 * A directory of the skill: `path' on disk, `rel' its path in the skill
 * ("" at the root).  Its files and subdirectories, recursively; its
 * entry in the directory table, with the listing of each child.
 */
static enum wymcp_err
add_dir(struct load *ld, const char *path, const char *rel, int depth)
{
	struct dirent		**names = NULL;
	struct wymcp__skill_dir	*d;
	size_t			 di;
	int			 n, k;
	enum wymcp_err		 rc = WYMCP_OK;

	if (depth > SKILL_DEPTH)
		return refuse(ld, path, "directories nest at most 8 deep in "
		    "a skill");
	if ((d = grow(&ld->s.dirs, ld->s.ndirs, &ld->capdirs,
	    sizeof(*d))) == NULL)
		return nomem(ld);
	memset(d, 0, sizeof(*d));
	di = ld->s.ndirs++;
	if ((d->uri = malloc(strlen(ld->name) + strlen(rel) + 10)) == NULL)
		return nomem(ld);
	snprintf(d->uri, strlen(ld->name) + strlen(rel) + 10, "skill://%s%s%s",
	    ld->name, *rel ? "/" : "", rel);
	if ((n = scandir(path, &names, NULL, byname)) == -1) {
		wymcp__seterr(ld->srv, "skills: %s: %s", path,
		    strerror(errno));
		return WYMCP_ERR_INVAL;
	}
	for (k = 0; k < n; k++)
		if (rc == WYMCP_OK && names[k]->d_name[0] != '.')
			rc = add_entry(ld, di, path, rel, names[k]->d_name,
			    depth);
	for (k = 0; k < n; k++)
		free(names[k]);
	free(names);
	return rc;
}

/*
 * The directory `name' of `dir' (realpath) as a skill's: in
 * ld->root, checked (inside `dir', not writable by all, its name a
 * skill name, room for it).  Not a directory: skipped (*skipped 1).
 */
static enum wymcp_err
skill_dir(struct load *ld, const char *dir, const char *name, int *skipped)
{
	struct stat	 st;
	char		 path[PATH_MAX];

	*skipped = 0;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    sizeof(path))
		return refuse(ld, dir, "a path longer than PATH_MAX");
	if ((ld->root = realpath(path, NULL)) == NULL) {
		wymcp__seterr(ld->srv, "skills: %s: %s", path,
		    strerror(errno));
		return WYMCP_ERR_INVAL;
	}
	if (!inside(dir, ld->root) || strcmp(dir, ld->root) == 0)
		return refuse(ld, path, "a symbolic link leading out of the "
		    "skills directory");
	if (stat(ld->root, &st) == -1 || !S_ISDIR(st.st_mode)) {
		*skipped = 1;
		return WYMCP_OK;
	}
	if (st.st_mode & S_IWOTH)
		return refuse(ld, path, "writable by every user: anyone could "
		    "change what agents are told");
	if (!wymcp__skill_name_ok(name))
		return refuse(ld, path, "a skill directory's name is its "
		    "skill name: 1 to 64 characters of a-z, 0-9 and '-', "
		    "without '-' first, last or twice in a row");
	if (ld->s.nskills == SKILLS_MAX)
		return refuse(ld, path, "at most 4096 skills are served");
	return WYMCP_OK;
}

/*
 * The files of the skill in ld->root: its SKILL.md (its frontmatter,
 * checked, in *fmp) and every other file, into ld->res.  On failure
 * neither is kept.
 */
static enum wymcp_err
skill_files(struct load *ld, struct json_object **fmp)
{
	char		 path[PATH_MAX], *real;
	enum wymcp_err	 rc;

	*fmp = NULL;
	if ((size_t)snprintf(path, sizeof(path), "%s/SKILL.md", ld->root) >=
	    sizeof(path))
		return refuse(ld, ld->root, "a path longer than PATH_MAX");
	if ((real = realpath(path, NULL)) == NULL)
		return refuse(ld, path, errno == ENOENT ? "a skill "
		    "directory must hold a SKILL.md" : strerror(errno));
	if (!inside(ld->root, real)) {
		free(real);
		return refuse(ld, path, "a symbolic link leading out of its "
		    "skill");
	}
	if ((ld->res = json_object_new_array()) == NULL) {
		free(real);
		return nomem(ld);
	}
	rc = add_file(ld, real, "SKILL.md", fmp);
	free(real);
	if (rc == WYMCP_OK)
		rc = check_frontmatter(ld, path, *fmp);
	if (rc == WYMCP_OK)
		rc = add_dir(ld, ld->root, "", 1);
	if (rc != WYMCP_OK) {
		json_object_put(*fmp);
		*fmp = NULL;
		json_object_put(ld->res);
		ld->res = NULL;
	}
	return rc;
}

/*
 * The skill `name' served: its entry (URI, frontmatter `fm', taken,
 * and ld->res, taken) and its digest.
 */
static enum wymcp_err
skill_entry(struct load *ld, const char *name, struct json_object *fm)
{
	struct wymcp__skill	*sk;
	struct json_object	*entry;

	entry = NULL;
	if ((sk = grow(&ld->s.skills, ld->s.nskills, &ld->capskills,
	    sizeof(*sk))) != NULL) {
		memset(sk, 0, sizeof(*sk));
		ld->s.nskills++;
		entry = json_object_new_object();
	}
	if (entry == NULL) {
		json_object_put(fm);
		json_object_put(ld->res);
		ld->res = NULL;
		return nomem(ld);
	}
	sk->entry = entry;
	sk->uri = malloc(strlen(name) + 18);
	if (sk->uri != NULL)
		snprintf(sk->uri, strlen(name) + 18, "skill://%s/SKILL.md",
		    name);
	if (sk->uri == NULL || wymcp__put_str(entry, "uri", sk->uri)) {
		json_object_put(fm);
		fm = NULL;
	}
	if (fm == NULL || wymcp__put_new(entry, "frontmatter", fm)) {
		json_object_put(ld->res);
		ld->res = NULL;
		return nomem(ld);
	}
	if (wymcp__put_new(entry, "resources", ld->res)) {
		ld->res = NULL;
		return nomem(ld);
	}
	ld->res = NULL;
	if (wymcp__listing_digest(entry, sk->digest))
		return nomem(ld);
	return WYMCP_OK;
}

/*
 * The skill in directory `name' of `dir' (realpath).  Not a directory:
 * skipped (*skipped 1).
 */
static enum wymcp_err
load_skill(struct load *ld, const char *dir, const char *name, int *skipped)
{
	struct json_object	*fm;
	enum wymcp_err		 rc;

	if ((rc = skill_dir(ld, dir, name, skipped)) != WYMCP_OK || *skipped)
		return rc;
	ld->name = name;
	ld->nfiles = 0;
	ld->bytes = 0;
	if ((rc = skill_files(ld, &fm)) != WYMCP_OK)
		return rc;
	return skill_entry(ld, name, fm);
}

static int
file_cmp(const void *a, const void *b)
{
	return strcmp(((const struct wymcp__skill_file *)a)->uri,
	    ((const struct wymcp__skill_file *)b)->uri);
}

static int
dir_cmp(const void *a, const void *b)
{
	return strcmp(((const struct wymcp__skill_dir *)a)->uri,
	    ((const struct wymcp__skill_dir *)b)->uri);
}

static int
skill_cmp(const void *a, const void *b)
{
	return strcmp(((const struct wymcp__skill *)a)->uri,
	    ((const struct wymcp__skill *)b)->uri);
}

/* Free what a load built. */
static void
skills_clear(struct wymcp__skills *s)
{
	size_t	 i, k;

	for (i = 0; i < s->nfiles; i++) {
		free(s->files[i].uri);
		free(s->files[i].path);
	}
	free(s->files);
	for (i = 0; i < s->ndirs; i++) {
		free(s->dirs[i].uri);
		for (k = 0; k < s->dirs[i].nchildren; k++)
			json_object_put(s->dirs[i].children[k].listing);
		free(s->dirs[i].children);
	}
	free(s->dirs);
	for (i = 0; i < s->nskills; i++) {
		free(s->skills[i].uri);
		json_object_put(s->skills[i].entry);
	}
	free(s->skills);
	memset(s, 0, sizeof(*s));
}

void
wymcp__skills_free(struct wymcp_server *srv)
{
	skills_clear(&srv->skills);
}

/*
 * A resource for each skill file (resources/list; resources/read finds
 * skill files before the registered resources: methods/skills.c).  The
 * SKILL.md's name and description are its frontmatter's.
 */
static enum wymcp_err
register_files(struct load *ld)
{
	struct wymcp_server	*srv = ld->srv;
	struct wymcp__resource	*nt, *r;
	struct wymcp__skill_file *f;
	struct json_object	*fm, *v;
	const struct wymcp__skill *sk;
	struct wymcp__skill	 key;
	size_t			 i, k, have = srv->nresources;

	for (i = 0; i < ld->s.nfiles; i++)
		for (k = 0; k < have; k++)
			if (strcmp(srv->resources[k].def->uri,
			    ld->s.files[i].uri) == 0)
				return refuse(ld, ld->s.files[i].path,
				    "a module serves a resource of the same "
				    "URI");
	if (ld->s.nfiles == 0)
		return WYMCP_OK;
	if ((nt = reallocarray(srv->resources, have + ld->s.nfiles,
	    sizeof(*nt))) == NULL)
		return nomem(ld);
	srv->resources = nt;
	for (i = 0; i < ld->s.nfiles; i++) {
		f = &ld->s.files[i];
		r = &nt[have + i];
		memset(r, 0, sizeof(*r));
		f->def.uri = f->uri;
		f->def.name = strrchr(f->uri, '/') + 1;
		f->def.mime = f->mime;
		key.uri = f->uri;
		sk = bsearch(&key, ld->s.skills, ld->s.nskills,
		    sizeof(*sk), skill_cmp);
		if (sk != NULL && json_object_object_get_ex(sk->entry,
		    "frontmatter", &fm)) {
			if (json_object_object_get_ex(fm, "name", &v))
				f->def.name = json_object_get_string(v);
			if (json_object_object_get_ex(fm, "description", &v))
				f->def.description = json_object_get_string(v);
		}
		r->def = &f->def;
		if ((r->listing = json_object_new_object()) == NULL ||
		    wymcp__put_str(r->listing, "uri", f->def.uri) ||
		    wymcp__put_str(r->listing, "name", f->def.name) ||
		    wymcp__put_str(r->listing, "description",
		    f->def.description) ||
		    wymcp__put_str(r->listing, "mimeType", f->def.mime) ||
		    wymcp__listing_digest(r->listing, r->digest)) {
			for (k = 0; k <= i; k++)
				json_object_put(nt[have + k].listing);
			return nomem(ld);
		}
	}
	srv->nresources = have + ld->s.nfiles;
	return WYMCP_OK;
}

enum wymcp_err
wymcp_server_load_skills(struct wymcp_server *srv, const char *dir)
{
	struct dirent	**names = NULL;
	struct load	 ld;
	char		*real = NULL;
	int		 n = 0, k, skipped;
	enum wymcp_err	 rc = WYMCP_OK;

	if (srv == NULL || dir == NULL)
		return WYMCP_ERR_INVAL;
	memset(&ld, 0, sizeof(ld));
	ld.srv = srv;
	if (srv->skills.nskills > 0 || srv->skills.ndirs > 0) {
		wymcp__seterr(srv, "skills: %s: skills are loaded already",
		    dir);
		return WYMCP_ERR_DUP;
	}
	if (sodium_init() < 0) {
		wymcp__seterr(srv, "skills: libsodium could not start");
		return WYMCP_ERR_NOMEM;
	}
	if ((real = realpath(dir, NULL)) == NULL ||
	    (n = scandir(real, &names, NULL, byname)) == -1) {
		wymcp__seterr(srv, "skills: %s: %s", dir, strerror(errno));
		free(real);
		return WYMCP_ERR_INVAL;
	}
	for (k = 0; k < n && rc == WYMCP_OK; k++) {
		if (names[k]->d_name[0] == '.')
			continue;
		rc = load_skill(&ld, real, names[k]->d_name, &skipped);
		free(ld.root);
		ld.root = NULL;
	}
	for (k = 0; k < n; k++)
		free(names[k]);
	free(names);
	free(real);
	if (rc == WYMCP_OK) {
		qsort(ld.s.files, ld.s.nfiles, sizeof(*ld.s.files), file_cmp);
		qsort(ld.s.dirs, ld.s.ndirs, sizeof(*ld.s.dirs), dir_cmp);
		qsort(ld.s.skills, ld.s.nskills, sizeof(*ld.s.skills),
		    skill_cmp);
		rc = register_files(&ld);
	}
	if (rc != WYMCP_OK) {
		skills_clear(&ld.s);
		return rc;
	}
	srv->skills = ld.s;
	return WYMCP_OK;
}
