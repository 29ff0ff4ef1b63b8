/*
 * shapes.c - the result shapes a client's answers must have
 *
 * MCP 2026-07-28 schema.json: CreateMessageResult (sampling/createMessage,
 * client/sampling.mdx) and ListRootsResult (roots/list, client/roots.mdx),
 * with every definition they refer to, exactly as schema.json has them
 * minus "description" and "title" text.  t/unit/check_shapes.c compares
 * them with the specification's schema.json when it is at hand.  The
 * subset validator (lib/schema.c) checks an answer against them before a
 * tool sees it; "format" is not checked there, so a root's "file://"
 * (Root.uri: "This *must* start with file://") is checked here.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"

/* The $defs of schema.json these shapes need, in name order. */
static const char defs[] =
	"\"Annotations\":{\"properties\":{\"audience\":{\"items\":{\"$ref\":"
	"\"#/$defs/Role\"},\"type\":\"array\"},\"lastModified\":{\"type\":\"s"
	"tring\"},\"priority\":{\"maximum\":1,\"minimum\":0,\"type\":\"number"
	"\"}},\"type\":\"object\"},"
	"\"AudioContent\":{\"properties\":{\"_meta\":{\"$ref\":\"#/$defs/Meta"
	"Object\"},\"annotations\":{\"$ref\":\"#/$defs/Annotations\"},\"data"
	"\":{\"format\":\"byte\",\"type\":\"string\"},\"mimeType\":{\"type\":"
	"\"string\"},\"type\":{\"const\":\"audio\",\"type\":\"string\"}},\"re"
	"quired\":[\"data\",\"mimeType\",\"type\"],\"type\":\"object\"},"
	"\"BlobResourceContents\":{\"properties\":{\"_meta\":{\"$ref\":\"#/$d"
	"efs/MetaObject\"},\"blob\":{\"format\":\"byte\",\"type\":\"string\"}"
	",\"mimeType\":{\"type\":\"string\"},\"uri\":{\"format\":\"uri\",\"ty"
	"pe\":\"string\"}},\"required\":[\"blob\",\"uri\"],\"type\":\"object"
	"\"},"
	"\"ContentBlock\":{\"anyOf\":[{\"$ref\":\"#/$defs/TextContent\"},{\"$"
	"ref\":\"#/$defs/ImageContent\"},{\"$ref\":\"#/$defs/AudioContent\"},"
	"{\"$ref\":\"#/$defs/ResourceLink\"},{\"$ref\":\"#/$defs/EmbeddedReso"
	"urce\"}]},"
	"\"CreateMessageResult\":{\"properties\":{\"_meta\":{\"$ref\":\"#/$de"
	"fs/MetaObject\"},\"content\":{\"anyOf\":[{\"$ref\":\"#/$defs/TextCon"
	"tent\"},{\"$ref\":\"#/$defs/ImageContent\"},{\"$ref\":\"#/$defs/Audi"
	"oContent\"},{\"$ref\":\"#/$defs/ToolUseContent\"},{\"$ref\":\"#/$def"
	"s/ToolResultContent\"},{\"items\":{\"$ref\":\"#/$defs/SamplingMessag"
	"eContentBlock\"},\"type\":\"array\"}]},\"model\":{\"type\":\"string"
	"\"},\"role\":{\"$ref\":\"#/$defs/Role\"},\"stopReason\":{\"type\":\""
	"string\"}},\"required\":[\"content\",\"model\",\"role\"],\"type\":\""
	"object\"},"
	"\"EmbeddedResource\":{\"properties\":{\"_meta\":{\"$ref\":\"#/$defs/"
	"MetaObject\"},\"annotations\":{\"$ref\":\"#/$defs/Annotations\"},\"r"
	"esource\":{\"anyOf\":[{\"$ref\":\"#/$defs/TextResourceContents\"},{"
	"\"$ref\":\"#/$defs/BlobResourceContents\"}]},\"type\":{\"const\":\"r"
	"esource\",\"type\":\"string\"}},\"required\":[\"resource\",\"type\"]"
	",\"type\":\"object\"},"
	"\"Icon\":{\"properties\":{\"mimeType\":{\"type\":\"string\"},\"sizes"
	"\":{\"items\":{\"type\":\"string\"},\"type\":\"array\"},\"src\":{\"f"
	"ormat\":\"uri\",\"type\":\"string\"},\"theme\":{\"enum\":[\"dark\","
	"\"light\"],\"type\":\"string\"}},\"required\":[\"src\"],\"type\":\"o"
	"bject\"},"
	"\"ImageContent\":{\"properties\":{\"_meta\":{\"$ref\":\"#/$defs/Meta"
	"Object\"},\"annotations\":{\"$ref\":\"#/$defs/Annotations\"},\"data"
	"\":{\"format\":\"byte\",\"type\":\"string\"},\"mimeType\":{\"type\":"
	"\"string\"},\"type\":{\"const\":\"image\",\"type\":\"string\"}},\"re"
	"quired\":[\"data\",\"mimeType\",\"type\"],\"type\":\"object\"},"
	"\"ListRootsResult\":{\"properties\":{\"roots\":{\"items\":{\"$ref\":"
	"\"#/$defs/Root\"},\"type\":\"array\"}},\"required\":[\"roots\"],\"ty"
	"pe\":\"object\"},"
	"\"MetaObject\":{\"type\":\"object\"},"
	"\"ResourceLink\":{\"properties\":{\"_meta\":{\"$ref\":\"#/$defs/Meta"
	"Object\"},\"annotations\":{\"$ref\":\"#/$defs/Annotations\"},\"descr"
	"iption\":{\"type\":\"string\"},\"icons\":{\"items\":{\"$ref\":\"#/$d"
	"efs/Icon\"},\"type\":\"array\"},\"mimeType\":{\"type\":\"string\"},"
	"\"name\":{\"type\":\"string\"},\"size\":{\"type\":\"integer\"},\"tit"
	"le\":{\"type\":\"string\"},\"type\":{\"const\":\"resource_link\",\"t"
	"ype\":\"string\"},\"uri\":{\"format\":\"uri\",\"type\":\"string\"}},"
	"\"required\":[\"name\",\"type\",\"uri\"],\"type\":\"object\"},"
	"\"Role\":{\"enum\":[\"assistant\",\"user\"],\"type\":\"string\"},"
	"\"Root\":{\"properties\":{\"_meta\":{\"$ref\":\"#/$defs/MetaObject\""
	"},\"name\":{\"type\":\"string\"},\"uri\":{\"format\":\"uri\",\"type"
	"\":\"string\"}},\"required\":[\"uri\"],\"type\":\"object\"},"
	"\"SamplingMessageContentBlock\":{\"anyOf\":[{\"$ref\":\"#/$defs/Text"
	"Content\"},{\"$ref\":\"#/$defs/ImageContent\"},{\"$ref\":\"#/$defs/A"
	"udioContent\"},{\"$ref\":\"#/$defs/ToolUseContent\"},{\"$ref\":\"#/$"
	"defs/ToolResultContent\"}]},"
	"\"TextContent\":{\"properties\":{\"_meta\":{\"$ref\":\"#/$defs/MetaO"
	"bject\"},\"annotations\":{\"$ref\":\"#/$defs/Annotations\"},\"text\""
	":{\"type\":\"string\"},\"type\":{\"const\":\"text\",\"type\":\"strin"
	"g\"}},\"required\":[\"text\",\"type\"],\"type\":\"object\"},"
	"\"TextResourceContents\":{\"properties\":{\"_meta\":{\"$ref\":\"#/$d"
	"efs/MetaObject\"},\"mimeType\":{\"type\":\"string\"},\"text\":{\"typ"
	"e\":\"string\"},\"uri\":{\"format\":\"uri\",\"type\":\"string\"}},\""
	"required\":[\"text\",\"uri\"],\"type\":\"object\"},"
	"\"ToolResultContent\":{\"properties\":{\"_meta\":{\"$ref\":\"#/$defs"
	"/MetaObject\"},\"content\":{\"items\":{\"$ref\":\"#/$defs/ContentBlo"
	"ck\"},\"type\":\"array\"},\"isError\":{\"type\":\"boolean\"},\"struc"
	"turedContent\":{},\"toolUseId\":{\"type\":\"string\"},\"type\":{\"co"
	"nst\":\"tool_result\",\"type\":\"string\"}},\"required\":[\"content"
	"\",\"toolUseId\",\"type\"],\"type\":\"object\"},"
	"\"ToolUseContent\":{\"properties\":{\"_meta\":{\"$ref\":\"#/$defs/Me"
	"taObject\"},\"id\":{\"type\":\"string\"},\"input\":{\"additionalProp"
	"erties\":{},\"type\":\"object\"},\"name\":{\"type\":\"string\"},\"ty"
	"pe\":{\"const\":\"tool_use\",\"type\":\"string\"}},\"required\":[\"i"
	"d\",\"input\",\"name\",\"type\"],\"type\":\"object\"}";

/* The definitions, as the text of an object's members (for tests). */
const char *
wymcp__shape_defs(void)
{
	return defs;
}

/*
 * Does `answer` have the shape of schema.json's definition `name`
 * ("CreateMessageResult" or "ListRootsResult")?  1, 0 with the reason
 * in err, -1 when out of memory.
 */
int
wymcp__shape_check(const char *name, struct json_object *answer, char *err,
    size_t errlen)
{
	struct json_object	*root, *roots, *uri;
	char			*text;
	size_t			 len, i, n;
	int			 rc;

	len = strlen(name) + sizeof(defs) + 64;
	if ((text = malloc(len)) == NULL)
		return -1;
	snprintf(text, len, "{\"$ref\":\"#/$defs/%s\",\"$defs\":{%s}}",
	    name, defs);
	root = wymcp__parse(text, strlen(text));
	free(text);
	if (root == NULL)
		return -1;
	rc = wymcp__schema_validate(root, answer, err, errlen);
	json_object_put(root);
	if (rc != 1 || strcmp(name, "ListRootsResult") != 0)
		return rc;
	json_object_object_get_ex(answer, "roots", &roots);
	n = json_object_array_length(roots);
	for (i = 0; i < n; i++) {
		json_object_object_get_ex(json_object_array_get_idx(roots, i),
		    "uri", &uri);
		if (strncmp(json_object_get_string(uri), "file://", 7) != 0) {
			snprintf(err, errlen, "value at '/roots/%zu/uri': a "
			    "root's URI must start with file://", i);
			return 0;
		}
	}
	return 1;
}
