# t/docs: the man pages, README and deploy/ name only options that
# wymcp-fcgi --help and wymcp-authz --help print (or another program's,
# allow-listed by program) and only functions the public headers
# declare; and proof that the check catches a planted name.
TESTS += %reldir%/run %reldir%/planted
EXTRA_DIST += %reldir%/check-doc-names %reldir%/run %reldir%/planted
# README's curl session against the server quickstart runs (wymcp-try,
# a private nginx): every shown answer is the server's (77 without
# nginx or curl).
TESTS += %reldir%/readme-answers
EXTRA_DIST += %reldir%/readme-answers
# README is a front door: at most 400 lines, the two commands shown, the
# rest pointed to (wymcp(7), deploy/README, t/README).
TESTS += %reldir%/readme-length
EXTRA_DIST += %reldir%/readme-length
