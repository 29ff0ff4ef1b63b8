/*
 * run.c - the run boundary
 *
 * MCP 2026-07-28 basic/patterns/mrtr.mdx and client/elicitation.mdx.
 * A question the request already carries an answer for returns that
 * answer; an unanswered one ends the round: the run unwinds (longjmp)
 * to the boundary wymcp__run() set up, and the method answers
 * input_required with the questions and a sealed requestState.  Nothing
 * ever blocks waiting for the client.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <string.h>

#include "core/core.h"

/*
 * Run body(ctx, arg) inside the boundary.  Returns how the run ended;
 * *rc is the body's return value when it returned, WYMCP_ERR_PENDING
 * when it stopped at a question, WYMCP_ERR_INVAL when an answer was
 * refused.  Cleanup hooks the run registered have run when this
 * returns, however the run ended.
 */
enum wymcp__outcome
wymcp__run(struct wymcp_ctx *ctx, struct wymcp__run *run, wymcp__body body,
    void *arg, enum wymcp_err *rc)
{
	struct wymcp__cleanup	*mark;
	enum wymcp__outcome	 outcome;

	memset(run, 0, sizeof(*run));
	run->thread = pthread_self();
	*rc = WYMCP_ERR_NOMEM;
	/* run->pending is made by the first question. */
	run->used_end = &run->used;
	if (ctx->call.answers == NULL &&
	    (ctx->call.answers = wymcp_own(ctx,
	    json_object_new_object())) == NULL)
		return WYMCP__RUN_DONE;
	mark = ctx->arena.cleanups;
	ctx->call.run = run;
	ctx->call.why = NULL;
	ctx->call.steps = 0;
	/* The program learns which handler runs (ctx->call.name). */
	wymcp__ctx_publish(ctx, 0);
	if (setjmp(run->jb) == 0) {
		*rc = body(ctx, arg);
		/*
		 * A batch the body left unflushed (it returned, typically
		 * passing WYMCP_ERR_PENDING up) still asks its questions.
		 */
		if (run->pending != NULL &&
		    json_object_object_length(run->pending) > 0) {
			*rc = WYMCP_ERR_PENDING;
			outcome = WYMCP__RUN_INPUT;
		} else
			outcome = WYMCP__RUN_DONE;
	} else if (run->to_task) {
		*rc = WYMCP_ERR_PENDING;
		outcome = WYMCP__RUN_TASK;
	} else if (run->fault != NULL) {
		*rc = WYMCP_ERR_INVAL;
		outcome = WYMCP__RUN_FAULT;
	} else {
		*rc = WYMCP_ERR_PENDING;
		outcome = WYMCP__RUN_INPUT;
	}
	ctx->call.run = NULL;
	wymcp__arena_unwind(&ctx->arena, mark);
	/*
	 * Its hooks unwound, the request owns the questions' map; a round
	 * that stopped at questions has one, if empty.
	 */
	if (run->pending != NULL || outcome == WYMCP__RUN_INPUT)
		run->pending = wymcp_own(ctx, run->pending != NULL ?
		    run->pending : json_object_new_object());
	if (run->pending == NULL && outcome == WYMCP__RUN_INPUT) {
		*rc = WYMCP_ERR_NOMEM;
		outcome = WYMCP__RUN_DONE;
	}
	return outcome;
}

/*
 * The map of the run's unanswered questions, made empty the first
 * time: a round that asks nothing makes none.  The request owns it
 * once the run is over (wymcp__run()).  NULL when out of memory.
 */
struct json_object *
wymcp__run_pending(struct wymcp__run *run)
{
	if (run->pending == NULL)
		run->pending = json_object_new_object();
	return run->pending;
}

/* End the round now: unwind to the boundary. */
void
wymcp__run_stop(struct wymcp__run *run)
{
	longjmp(run->jb, 1);
}

/* Is the run open, and in this thread? */
struct wymcp__run *
wymcp__run_open(const struct wymcp_ctx *ctx)
{
	if (ctx->call.run == NULL || !pthread_equal(ctx->call.run->thread,
	    pthread_self()))
		return NULL;
	return ctx->call.run;
}

enum wymcp_err
wymcp_input_batch(struct wymcp_ctx *ctx)
{
	struct wymcp__run	*run;

	if (ctx == NULL)
		return WYMCP_ERR_INVAL;
	if ((run = wymcp__run_open(ctx)) == NULL)
		return WYMCP_ERR_NORUN;
	run->batch = 1;
	return WYMCP_OK;
}

enum wymcp_err
wymcp_input_flush(struct wymcp_ctx *ctx)
{
	struct wymcp__run	*run;

	if (ctx == NULL)
		return WYMCP_ERR_INVAL;
	if ((run = wymcp__run_open(ctx)) == NULL)
		return WYMCP_ERR_NORUN;
	run->batch = 0;
	if (run->pending != NULL &&
	    json_object_object_length(run->pending) > 0)
		wymcp__run_stop(run);
	return WYMCP_OK;
}

/*
 * From here on the call runs as a task (the tasks extension): in a
 * request that may make it one, the round ends here and the call core
 * stores the task with the answers gathered so far (the questions
 * asked before were multi round-trip requests, resolved synchronously:
 * tasks.md "Task Creation"); in a task runner, and in a request that
 * cannot make a task, the call goes on.
 */
enum wymcp_err
wymcp_task_start(struct wymcp_ctx *ctx)
{
	struct wymcp__run	*run;

	if (ctx == NULL)
		return WYMCP_ERR_INVAL;
	if ((run = wymcp__run_open(ctx)) == NULL)
		return WYMCP_ERR_NORUN;
	if (ctx->call.in_task || !ctx->call.task_ok)
		return WYMCP_OK;
	run->to_task = 1;
	wymcp__run_stop(run);
	return WYMCP_OK;	/* not reached */
}
