/*
 * setup.h - the server object: modules, registrations, keys, settings
 *
 * Everything here is built once per process, before the accept loop,
 * and read-only while requests are served.
 */
#ifndef WYMCP_SETUP_H
#define WYMCP_SETUP_H

#include "lib/lib.h"

/*
 * xheader.c: an argument mirrored in an Mcp-Param-<Name> header
 * (x-mcp-header, basic/transports/streamable-http.mdx "Custom Headers").
 */
struct wymcp__xparam {
	char		**path;		/* property names from the root */
	size_t		 npath;
	char		*header;	/* the x-mcp-header value */
	char		*param;		/* HTTP_MCP_PARAM_<NAME>, as CGI */
	int		 type;		/* json_type_string/int/boolean */
};

/*
 * module.c: a registered tool, with everything parsed at load time.
 * `def` points at the module's own element; `decl` is a copy of it cut
 * at the module's stride, so a member the module's header did not have
 * reads as 0: read members added after 0.2 from `decl`, never `def`.
 */
struct wymcp__tool {
	const struct wymcp_tool	*def;		/* the module's declaration */
	struct wymcp_tool	 decl;		/* the same, at our size */
	const struct wymcp_module *mod;	/* the module that declares it */
	struct json_object	*listing;	/* Tool object for tools/list */
	struct json_object	*input;		/* parsed inputSchema */
	struct json_object	*output;	/* outputSchema, or NULL */
	struct json_object	*reqcaps;	/* required caps, or NULL */
	struct json_object	*defaults;	/* declared params' defaults:
						   name -> value, or NULL */
	unsigned char		 digest[32];	/* of the listing (mount id) */
	int			 digested;	/* digested, listing frozen */
	struct wymcp__xparam	*xparams;	/* x-mcp-header arguments */
	size_t			 nxparams;
	int			 app_only;	/* _meta.ui.visibility lacks
						   "model" (MCP Apps) */
};

/* resource.c, prompt.c: registered resources, templates and prompts. */
struct wymcp__resource {
	const struct wymcp_resource *def;
	const struct wymcp_module *mod;
	struct json_object	*listing;	/* Resource/ResourceTemplate */
	unsigned char		 digest[32];	/* of the listing: list id */
	const char		*text;		/* served by us, or NULL */
	char			*filetext;	/* a file's text, ours */
};
struct wymcp__prompt {
	const struct wymcp_prompt *def;
	const struct wymcp_module *mod;
	struct json_object	*listing;	/* Prompt object */
	unsigned char		 digest[32];	/* of the listing: list id */
	size_t			 argstride;	/* of def->args */
};
/* Argument i of a registered prompt (by the module's stride). */
#define WYMCP__PROMPT_ARG(p, i)						\
	WYMCP__AT(struct wymcp_prompt_arg, (p)->def->args, i, (p)->argstride)

/*
 * skills.c: the skills of wymcp_server_load_skills()
 * (io.modelcontextprotocol/skills), each table sorted by URI.
 */
struct wymcp__skill_file {
	char			*uri;		/* skill://<name>/<path> */
	char			*path;		/* realpath, at load */
	const char		*mime;
	size_t			 size;
	unsigned char		 sha[32];	/* SHA-256, at load */
	int			 text;		/* UTF-8 without NUL */
	struct wymcp_resource	 def;		/* its resource */
};
struct wymcp__skill_child {
	struct json_object	*listing;	/* Resource */
	unsigned char		 digest[32];	/* of the listing */
};
struct wymcp__skill_dir {
	char			*uri;		/* skill://<name>[/<path>] */
	struct wymcp__skill_child *children;	/* by name */
	size_t			 nchildren;
	size_t			 cap;
};
struct wymcp__skill {
	char			*uri;		/* of its SKILL.md */
	struct json_object	*entry;		/* Skill, frozen */
	unsigned char		 digest[32];	/* of the entry */
};
struct wymcp__skills {
	struct wymcp__skill	*skills;
	size_t			 nskills;
	struct wymcp__skill_file *files;
	size_t			 nfiles;
	struct wymcp__skill_dir	*dirs;
	size_t			 ndirs;
};

/*
 * exec.c: a tool that is a program (wymcp-exec(5)), parsed from its
 * manifest once at load.  `def' comes first: the tools of an exec set
 * form a module table whose stride is this structure's size, so the
 * run function finds its tool from the registration's `def'.
 */
struct wymcp__exec_limits {
	long long	 memory;	/* RLIMIT_AS, bytes */
	long long	 cpu;		/* RLIMIT_CPU, seconds */
	long long	 processes;	/* RLIMIT_NPROC, more processes */
	long long	 output;	/* stdout bytes kept */
	long long	 files;		/* RLIMIT_NOFILE */
	long long	 file_size;	/* RLIMIT_FSIZE, bytes */
};
struct wymcp__exec {
	struct wymcp_tool	 def;		/* first: see above */
	char			*file;		/* the manifest's path */
	char			*dir;		/* its directory, real */
	char			**argv;		/* command, argv[0] resolved */
	size_t			 argc;
	char			**env;		/* names passed on */
	size_t			 nenv;
	char			**rd;		/* paths.read, real */
	size_t			 nrd;
	char			**wr;		/* paths.write, real */
	size_t			 nwr;
	long			 timeout_ms;	/* "timeout" */
	long			 grace_ms;	/* "grace": TERM to KILL */
	struct wymcp__exec_limits lim;
	int			 hide_stderr;	/* "stderr": "hide" */
	int			 no_ns;		/* not "namespaces": true */
	char			*user;		/* "user", or NULL */
	long long		 uid;		/* its uid, gid; -1: none */
	long long		 gid;
	char			*text[11];	/* def's strings, ours */
};
/* One wymcp_server_load_exec_dir(): a module of exec tools. */
struct wymcp__execset {
	struct wymcp__execset	*next;
	struct wymcp_module	 mod;
	struct wymcp__exec	*tools;		/* mod.tools */
	size_t			 ntools;
	char			*dir;
};
#define WYMCP__EXEC_TIMEOUT	30000	/* ms, without "timeout" */
#define WYMCP__EXEC_GRACE	2000	/* ms, without "grace" */

/* module.c: a loaded module. */
struct wymcp__module {
	void			*handle;	/* dlopen handle, or NULL */
	const struct wymcp_module *mod;
	char			*path;		/* or NULL: linked in */
};

/* server.c: an allowed origin (scheme://host[:port]) or a bare host. */
struct wymcp__origin {
	char	*origin;	/* exact Origin to accept, or NULL */
	char	*host;		/* host name (lower case), no port */
};

/*
 * A parsed elicitation schema the server remembers for the text it came
 * from (core/ask.c): tools pass the same static text round after round,
 * so it is parsed and checked once per process, not once per question.
 * A pure memo: what it holds follows from the text alone, and from the
 * message of the question last asked with it.
 */
struct wymcp__schema_memo {
	const char		*ptr;		/* the text's address, */
	char			*text;		/* ... and a copy of it */
	struct json_object	*schema;	/* parsed, and checked */
	/*
	 * The last question asked with it ({method, params}, frozen),
	 * and its message, by address and copy: a tool asks the same
	 * question round after round (NULL until one is asked).
	 */
	const char		*msgptr;
	char			*msg;
	struct json_object	*question;
};
#define WYMCP__SCHEMA_MEMO	64

/* keys.c: a requestState sealing key. */
struct wymcp__key {
	unsigned char	 key[32];
	unsigned char	 id[4];		/* BLAKE2b of the key, truncated */
};

struct wymcp__store;	/* store/store.h */

/*
 * The server card last served (serve/card.c): its text and entity tag,
 * for the request shape `key' (URL, versions) and serverInfo `gen'.
 */
struct wymcp__card {
	char			*key;		/* NULL: none yet */
	unsigned long		 gen;
	char			*text;		/* compact JSON */
	size_t			 len;
	char			 etag[36];	/* "\"<32 hex digits>\"" */
};
#define WYMCP__PUBLIC_HEADERS_MAX 8	/* wymcp_server_add_public_header() */

struct wymcp_server {
	struct wymcp__tool	*tools;		/* registration order */
	size_t			 ntools;
	/* Built at load (wymcp__tools_index()) for the requests: */
	const struct wymcp__tool **all;		/* every tool, in order */
	uint32_t		*index;		/* name hash -> tool + 1 */
	size_t			 nindex;	/* slots, a power of 2 */
	unsigned char		 mount_digest[32]; /* of all tools, in order */
	int			 digested;	/* it and every tool's made */
	int			 lazy;		/* digests on first use */
	int64_t			 tools_ttl;	/* smallest module ttlMs */
	int			 tools_private;	/* a module is private */
	int			 tools_scoped;	/* a tool declares scopes */
	int			 tools_audit_args; /* a tool has audit_args */
	struct wymcp__module	*mods;
	size_t			 nmods;
	struct wymcp__resource	*resources;	/* fixed URIs */
	size_t			 nresources;
	struct wymcp__resource	*templates;	/* URI templates */
	size_t			 ntemplates;
	struct wymcp__prompt	*prompts;
	size_t			 nprompts;
	size_t			 ncompleters;	/* modules with complete() */
	size_t			 page_size;	/* list page size */
	struct wymcp__origin	*origins;
	size_t			 norigins;
	size_t			 max_body;
	wymcp_log_fn		 logfn;
	void			*logarg;
	/*
	 * Told each misuse a request's tool makes of the API that the
	 * wire lets pass with a warning (a question key asked twice: ask.c),
	 * so the testing library can fail the call; NULL elsewhere.
	 */
	void			(*misusefn)(void *, const char *);
	void			*misusearg;
	int			 logmax;	/* highest priority logged */
	wymcp_request_fn	 reqfn;		/* the request hook */
	void			*reqarg;
	int			 reqdetail;	/* WYMCP_DETAIL_* */
	wymcp_admit_fn		 admitfn;	/* rate limits, or NULL */
	void			*admitarg;
	unsigned long		 timeout_ms;	/* request time limit, 0 */
	struct json_object	*result_meta;	/* {"…/serverInfo":{…}} */
	struct json_object	*info_set;	/* the operator's members */
	char			*instructions_set; /* the operator's, or NULL */
	char			*instructions;	/* sent, or NULL: none */
	struct wymcp__key	*keys;		/* first seals, all open */
	size_t			 nkeys;
	int			 keys_random;	/* keys[0] made at new() */
	unsigned int		 state_ttl;	/* seconds */
	int			 legacy;	/* serve 2025-11-25 clients */
	struct wymcp__store	*tasks;		/* task store, or NULL */
	void			(*tasks_free)(struct wymcp__store *);
	wymcp_store_watch_fn	 store_watch;	/* the store's ups and downs */
	void			*store_watch_arg;
	wymcp_file_check_fn	 filecheck;	/* vets a module's files */
	void			*filecheck_arg;
	size_t			 napps;		/* ui:// resources (MCP Apps) */
	size_t			 napps_only;	/* app-only tools */
	wymcp_publish_fn	 publish;	/* events go out: listChanged */
	void			*publish_arg;
	struct wymcp__skills	 skills;	/* skills.c */
	struct wymcp__execset	*execs;		/* exec.c: exec tools */
	long long		 exec_uid;	/* runs' user; -1: none */
	long long		 exec_gid;
	struct wymcp__schema_memo memo[WYMCP__SCHEMA_MEMO];
	size_t			 nmemo;
	/* The pipeline's body buffer, reused request after request. */
	char			*readbuf;
	size_t			 readbufsz;
	struct wymcp__json_memo	 metamemo;	/* the last params._meta */
	struct wymcp__buf	 writebuf;	/* the response body */
	char			 errmsg[512];	/* last failure */
	/* Discovery outside MCP (card.c, serve/card.c). */
	char			*public_url;	/* --public-url, or NULL */
	char			**public_headers; /* headers it needs */
	size_t			 npublic_headers;
	unsigned long		 info_gen;	/* +1 at each change of the
						   serverInfo or the above */
	struct wymcp__card	 card;		/* the last card served */
};

/*
 * Does a module (built against an older header) have `field`?  Members
 * are only ever added at the end, so a smaller size means it ends
 * before them.
 */
#define WYMCP__HAS(mod, field)						\
	((mod)->size >= offsetof(struct wymcp_module, field) +		\
	    sizeof((mod)->field))

/*
 * The stride of a module's table and the address of element i: the
 * element size the module was built with (0.3), else the size the 0.2
 * header gave, kept here as frozen copies of the 0.2 layouts.  A member
 * added later is read only when the stride covers it.
 */
struct wymcp__tool_0_2 {
	const char	*name, *title, *description, *input_schema;
	const char	*output_schema, *annotations, *required_caps;
	wymcp_tool_fn	 run;
};
struct wymcp__resource_0_2 {
	const char	*uri, *name, *title, *description, *mime;
	wymcp_read_fn	 read;
};
struct wymcp__prompt_0_2 {
	const char			*name, *title, *description;
	const struct wymcp_prompt_arg	*args;
	wymcp_prompt_fn			 get;
};
struct wymcp__prompt_arg_0_2 {
	const char	*name, *title, *description;
	int		 required;
};
/* The 0.3 tool (scopes added); 0.4 adds task_support, icons, meta. */
struct wymcp__tool_0_3 {
	struct wymcp__tool_0_2	 t;
	const char		*scopes;
};
#define WYMCP__TOOL_SIZE_0_2	sizeof(struct wymcp__tool_0_2)
#define WYMCP__RESOURCE_SIZE_0_2 sizeof(struct wymcp__resource_0_2)
#define WYMCP__PROMPT_SIZE_0_2	sizeof(struct wymcp__prompt_0_2)
#define WYMCP__PROMPT_ARG_SIZE_0_2 sizeof(struct wymcp__prompt_arg_0_2)
#define WYMCP__MEMBER_IN(type, member, stride)				\
	(offsetof(type, member) + sizeof(((type *)0)->member) <= (stride))
#define WYMCP__STRIDE(mod, field, old)					\
	(WYMCP__HAS(mod, field) && (mod)->field != 0 ? (mod)->field : (old))
/*
 * How many entries of a table to read at most: the length the module
 * recorded (0.4), else SIZE_MAX: up to the terminator.
 */
#define WYMCP__COUNT(mod, field)					\
	(WYMCP__HAS(mod, field) && (mod)->field != 0 ? (mod)->field :	\
	    SIZE_MAX)
#define WYMCP__AT(type, base, i, stride)				\
	((const type *)(const void *)((const char *)(base) + (i) * (stride)))

/* log.c */
void	 wymcp__vlog(const struct wymcp_server *, const char *reqid,
	    int prio, const char *fmt, va_list) WYMCP_PRINTF(4, 0);
void	 wymcp__log(const struct wymcp_server *, const char *reqid,
	    int prio, const char *fmt, ...) WYMCP_PRINTF(4, 5);
void	 wymcp__seterr(struct wymcp_server *, const char *fmt, ...)
	    WYMCP_PRINTF(2, 3);

/* params.c: schemas from parameters declared in C. */
enum wymcp_err wymcp__params_schema(struct wymcp_server *, const char *tool,
	    const char *what, const struct wymcp_params *, int input,
	    struct json_object **schema, struct json_object **defaults);

/* module.c: a module's cache hints. */
int64_t	 wymcp__module_ttl(const struct wymcp_module *);
int	 wymcp__module_private(const struct wymcp_module *);

/* module.c: registration. */
void	 wymcp__modules_free(struct wymcp_server *);
enum wymcp_err wymcp__tools_index(struct wymcp_server *);
uint64_t wymcp__name_hash(const char *, size_t);
const struct wymcp__tool *wymcp__tool_lookup(const struct wymcp_server *,
	    const char *name, size_t len);
enum wymcp_err wymcp__tool_prepare(struct wymcp_server *,
	    const struct wymcp_module *, const struct wymcp_tool *,
	    struct wymcp__tool *);
void	 wymcp__tool_clear(struct wymcp__tool *);

/* resource.c, prompt.c: a module's resources, templates and prompts. */
enum wymcp_err wymcp__module_extras(struct wymcp_server *,
	    const struct wymcp_module *);
void	 wymcp__extras_free(struct wymcp_server *);
enum wymcp_err wymcp__prompts_prepare(struct wymcp_server *,
	    const struct wymcp_module *, size_t *);
void	 wymcp__prompts_free(struct wymcp_server *);
const struct wymcp__prompt *wymcp__prompt_find(const struct wymcp_server *,
	    const char *name);
const struct wymcp__resource *wymcp__resource_ref(
	    const struct wymcp_server *, const char *uri, int *is_template);

/* skills.c: the skills directory. */
int	 wymcp__skill_name_ok(const char *);
void	 wymcp__skills_free(struct wymcp_server *);
/* exec.c: exec tool manifests (wymcp-exec(5)). */
int	 wymcp__exec_parse(const char *name, const char *buf, size_t len,
	    struct wymcp__exec *, char *err, size_t errlen);
int	 wymcp__exec_resolve(struct wymcp_server *, const char *dir,
	    struct wymcp__exec *, char *err, size_t errlen);
void	 wymcp__exec_clear(struct wymcp__exec *);
void	 wymcp__execs_free(struct wymcp_server *);
long long wymcp__exec_size(const char *, long long max);
/* meta.c: icons, _meta, the server's Implementation. */
enum wymcp_err wymcp__meta_prepare(struct wymcp_server *, const char *who,
	    const char *icons, const char *meta, struct json_object *listing);
enum wymcp_err wymcp__module_info_check(struct wymcp_server *,
	    const struct wymcp_module *);
enum wymcp_err wymcp__server_info_build(struct wymcp_server *);

/* card.c: the server card and server.json (discovery outside MCP). */
int	 wymcp__card_name_ok(const char *);
int	 wymcp__url_parts(const char *url, const char **host, size_t *hlen,
	    const char **path);
struct json_object *wymcp__card_build(const struct wymcp_server *,
	    const char *url, struct json_object *versions, int registry,
	    char *why, size_t whylen);
void	 wymcp__card_free(struct wymcp_server *);

/* xheader.c: x-mcp-header at load time. */
enum wymcp_err wymcp__xparams_compile(struct wymcp_server *,
	    struct wymcp__tool *);
void	 wymcp__xparams_free(struct wymcp__tool *);

/* keys.c: keys, and the digests made on first use. */
int	 wymcp__keys_random(struct wymcp_server *);
int	 wymcp__keyfile_parse(const char *buf, size_t len,
	    struct wymcp__key **keys, size_t *nkeys, char *err,
	    size_t errlen);
int	 wymcp__tool_digest(struct wymcp__tool *);
void	 wymcp__mount_digest(const struct wymcp__tool *const *, size_t,
	    unsigned char *);
enum wymcp_err wymcp__tools_digest(const struct wymcp_server *);
int	 wymcp__listing_digest(struct json_object *, unsigned char *);

#endif /* WYMCP_SETUP_H */
