"""Prints the folder on this interpreter's sys.path where a package installed under the
prefix given as argument is imported from (python/meson.build), or nothing when the
interpreter searches no such folder under that prefix."""

import sys

prefix = sys.argv[1].rstrip("/") + "/lib/"
found = [p for p in sys.path if p.startswith(prefix) and p.endswith(("dist-packages", "site-packages"))]
print(found[0] if found else "")
