/* weather.c - a made-up forecast: structuredContent, and text from it */
#include <wymcp.h>

static enum wymcp_err
weather(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	const char		*city = wymcp_arg_str(args, "city", "");
	int			 d, days = wymcp_arg_int(args, "days", 3);
	struct json_object	*fc = wymcp_jsonf(ctx, "[]");
	enum wymcp_err		 rc = WYMCP_OK;

	for (d = 1; d <= days && rc == WYMCP_OK; d++)
		rc = wymcp_json_append(ctx, fc, "{\"day\":%d,\"high\":%d,"
		    "\"sky\":%s}", d, 12 + d * 7 % 9, d % 3 ? "sun" : "rain");
	return rc != WYMCP_OK ? rc : wymcp_result_jsonf(res,
	    "{\"city\":%s,\"days\":%d,\"forecast\":%p}", city, days, fc);
}

static const struct wymcp_tool tools[] = { { .name = "weather",
	.description = "A forecast for a city, 1 to 7 days (made up).",
	.input_schema = WYMCP_JSON({ "type": "object", "properties": {
	    "city": { "type": "string", "minLength": 1 }, "days": { "type":
	    "integer", "minimum": 1, "maximum": 7 } }, "required": ["city"] }),
	.output_schema = WYMCP_JSON({ "type": "object", "properties": {
	    "city": { "type": "string" }, "days": { "type": "integer" },
	    "forecast": { "type": "array", "items": { "type": "object",
	    "required": ["day", "high", "sky"] } } },
	    "required": ["city", "days", "forecast"] }), .run = weather } };
WYMCP_MODULE("weather", tools);
