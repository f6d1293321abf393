"""The compatibility run's warning log for the programs a page's shell block starts (tools/compat_child.py puts this
folder on PYTHONPATH and names the log in COMPAT_WARNINGS): every warning a process shows is also written there as a
JSON line, torchrun's workers' too. Standard library only."""

import json
import os
import warnings

_LOG = os.environ.get("COMPAT_WARNINGS")
if _LOG:
    _show = warnings.showwarning

    def _record(message, category, filename, lineno, file=None, line=None):
        with open(_LOG, "a", encoding="utf-8") as f:
            f.write(json.dumps({"category": category.__name__, "message": str(message), "filename": filename,
                                "lineno": lineno}) + "\n")
        _show(message, category, filename, lineno, file, line)

    warnings.showwarning = _record
    warnings.simplefilter("default")
