# t/layers: the layer rule of src/ (includes and calls go down, no call
# cycle), and proof that the check catches an upward include.
TESTS += %reldir%/run %reldir%/planted
EXTRA_DIST += %reldir%/check-layers %reldir%/run %reldir%/planted
