/* disk_usage.c - how full a file system is: declared parameters and output */
#include <errno.h>
#include <string.h>
#include <sys/statvfs.h>
#include <wymcp.h>

static enum wymcp_err
disk_usage(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	const char	*path = wymcp_arg_str(args, "path", NULL);
	struct statvfs	 s;
	long long	 total, avail;

	if (statvfs(path, &s) == -1)
		return wymcp_result_error(res, "%s: %s", path, strerror(errno));
	total = (long long)s.f_blocks * s.f_frsize;
	avail = (long long)s.f_bavail * s.f_frsize;
	return wymcp_result_jsonf(res, "{\"path\":%s,\"total\":%lld,\"used\":"
	    "%lld,\"free\":%lld,\"percent\":%.1f}", path, total, total - avail,
	    avail, total > 0 ? 100.0 * (total - avail) / total : 0.0);
}

static const struct wymcp_tool tools[] = { { .name = "disk_usage",
	.description = "How full the file system holding a directory is.",
	.params = WYMCP_PARAMS(WYMCP_STR("path", "A directory.", .def = "/")),
	.output = WYMCP_PARAMS(WYMCP_STR("path", "The directory."),
	    WYMCP_INT("total", "Bytes in the file system."),
	    WYMCP_INT("used", "Bytes used."), WYMCP_INT("free", "Bytes free."),
	    WYMCP_NUM("percent", "Percent used.")),
	.annotations = WYMCP_JSON({ "readOnlyHint": true }),
	.run = disk_usage } };
WYMCP_MODULE("disk_usage", tools);
