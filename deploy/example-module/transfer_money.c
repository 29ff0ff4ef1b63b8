/* transfer_money.c - two questions, then the one write: see wymcp(7) */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wymcp.h>

static const char *const accounts[] = { "checking", "savings", NULL };

static enum wymcp_err
transfer(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	const char	*to = wymcp_arg_str(args, "to", ""), *from, *dir;
	long long	 c = wymcp_arg_int(args, "cents", 0);
	enum wymcp_err	 rc;

	if ((rc = wymcp_ask_choice(ctx, "From which account?", accounts,
	    &from)) != WYMCP_OK || (rc = wymcp_ask(ctx, wymcp_printf(ctx,
	    "Send %lld.%02lld to %s from %s?", c / 100, c % 100, to, from),
	    NULL, NULL)) != WYMCP_OK)
		return rc == WYMCP_ERR_DECLINED || rc == WYMCP_ERR_CANCELLED ?
		    wymcp_result_text(res, "Nothing was sent.") : rc;
	/* Both answers in: one entry per call, made whole (a symlink). */
	if ((dir = getenv("TRANSFER_LEDGER")) == NULL)
		return wymcp_result_error(res, "TRANSFER_LEDGER is not set.");
	if (symlink(wymcp_printf(ctx, "%s %s %lld", from, to, c),
	    wymcp_printf(ctx, "%s/%s", dir, wymcp_idempotency_key(ctx))) ==
	    -1 && errno != EEXIST)
		return wymcp_result_error(res, "The ledger: %s.",
		    strerror(errno));
	return wymcp_result_text(res, "Sent %lld.%02lld to %s from %s.",
	    c / 100, c % 100, to, from);
}

static const struct wymcp_tool tools[] = { { .name = "transfer_money",
	.description = "Sends money, once you chose an account and agreed.",
	.input_schema = WYMCP_JSON({ "type": "object", "properties": {
	    "to": { "type": "string", "minLength": 1 }, "cents": {
	    "type": "integer", "minimum": 1 } }, "required": ["to", "cents"] }),
	.run = transfer } };
WYMCP_MODULE("transfer_money", tools);
