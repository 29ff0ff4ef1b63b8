/*
 * testing.h - the testing library's internal header
 *
 * libwymcp-testing sits on top of the whole pipeline: it builds
 * contexts as the framework does and drives calls through the same
 * call core and, for whole calls, through wymcp_server_serve().
 */
#ifndef WYMCP_TESTING_INTERNAL_H
#define WYMCP_TESTING_INTERNAL_H

#include "serve/serve.h"
#include "wymcp_testing.h"

#endif /* WYMCP_TESTING_INTERNAL_H */
