# t/layers: the layer rule of src/ (includes and calls go down, no call
# cycle), and proof that the check catches an upward include; the rooms
# (no function over 80 lines, main.c and hub.c under 800: issue 33).
TESTS += %reldir%/run %reldir%/planted %reldir%/rooms
EXTRA_DIST += %reldir%/check-layers %reldir%/run %reldir%/planted \
	%reldir%/rooms
