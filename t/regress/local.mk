# t/regress: whole requests through wymcp_server_serve() (the harness in
# t/lib), one suite per behaviour.
REGRESS_TESTS = \
	%reldir%/check_admit \
	%reldir%/check_detail \
	%reldir%/check_dispatch \
	%reldir%/check_elicit \
	%reldir%/check_exec \
	%reldir%/check_legacy \
	%reldir%/check_limits \
	%reldir%/check_list \
	%reldir%/check_prompt \
	%reldir%/check_resource \
	%reldir%/check_scopes \
	%reldir%/check_skills \
	%reldir%/check_stream \
	%reldir%/check_tasks \
	%reldir%/check_wire
check_PROGRAMS += $(REGRESS_TESTS)
TESTS += $(REGRESS_TESTS) %reldir%/refuse-module %reldir%/trust-module \
	%reldir%/refuse-backend \
	%reldir%/check-tasks-pg %reldir%/app-file-module %reldir%/exec-call \
	%reldir%/exec-examples
EXTRA_DIST += %reldir%/refuse-module %reldir%/trust-module \
	%reldir%/refuse-backend \
	%reldir%/check-tasks-pg %reldir%/app-file-module %reldir%/exec-call \
	%reldir%/exec-examples
