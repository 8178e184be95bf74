r"""memfit from Python: how much memory an LLM inference run will take, and
whether it fits, from the model's config and weight headers only.

    import memfit
    report = memfit.estimate("./models/qwen3-8b", max_tokens=32768, memory_limit="24GiB")
    print(report["total_bytes"], report["fits"])

or from a shell, as `memfit inspect` (the same flags, the same report):

    python3 -m memfit inspect -m ./models/qwen3-8b --max-tokens 32k --memory-limit 24GiB
    python3 -m memfit inspect -m ./models/qwen3-8b --json

estimate() passes its keyword arguments as the fields of one JSON request
to the C library (memfit_estimate_request_json in include/memfit/memfit.h),
so every field the library takes is available here without a new module;
the list below is every one, with the value Python passes for it (counts
are ints: 32768, not "32k"; python3 -m memfit takes the CLI's texts) and
the flags of python3 -m memfit inspect. The answer is the report `memfit
inspect --json` prints, as a dict. Failures raise a MemfitError subclass
chosen by the error's kind. engines() lists the engines and fields as the
library has them (GET /v1/engines).

The C library is found, in order, at $MEMFIT_LIBRARY, beside the installed
package (<prefix>/lib/libmemfit_c.so for <prefix>/lib/python3/dist-packages/
memfit, <prefix>/lib/python3.11/site-packages/memfit, ...: where `cmake
--install` and pip put them under one prefix or venv), then by the system's
library search. Standard library only.

Request fields (generated from the request field table: scripts/gen-field-docs.py):
(end of the generated field list)
"""

import ctypes
import ctypes.util
import json
import os
import pathlib

__version__ = "0.1.0"  # the project's (CMakeLists.txt), as pyproject.toml; tests/python checks both

__all__ = [
    "estimate",
    "request",
    "engines",
    "version",
    "MemfitError",
    "UsageError",
    "InputError",
    "SizeOverflowError",
    "HostError",
    "InternalError",
]

_MEMFIT_OK = 0
# memfit_run_request_json's options (include/memfit/memfit.h).
_FLAG_TEXTS = 1
_WITH_TEXT = 2


class MemfitError(Exception):
    """A request memfit could not answer. `kind` is the library's error kind
    ("usage", "input", "overflow", "host", "internal"); `field` names the
    request field a usage error is about, or is None."""

    def __init__(self, kind, message, field=None):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.field = field


class UsageError(MemfitError, ValueError):
    """The request itself is wrong: a value out of range, an unknown name."""


class InputError(MemfitError):
    """The model, a file or a header cannot be read or is refused."""


class SizeOverflowError(MemfitError, OverflowError):
    """The figures do not fit in 64 bits (absurd configs or requests)."""


class HostError(MemfitError):
    """The machine cannot answer: the selected device does not exist."""


class InternalError(MemfitError):
    """A bug in memfit, caught at the library's boundary."""


_ERROR_CLASSES = {
    "usage": UsageError,
    "input": InputError,
    "overflow": SizeOverflowError,
    "host": HostError,
    "internal": InternalError,
}


def _library_candidates():
    explicit = os.environ.get("MEMFIT_LIBRARY")
    if explicit:
        yield explicit
        return
    # <prefix>/lib/python3/dist-packages/memfit/__init__.py -> <prefix>/lib
    # (and lib/python3.X/site-packages, as pip installs into a venv).
    parents = pathlib.Path(__file__).resolve().parents
    if len(parents) > 3:
        yield str(parents[3] / "libmemfit_c.so")
    found = ctypes.util.find_library("memfit_c")
    if found:
        yield found


def _declare(lib):
    lib.memfit_version.restype = ctypes.c_char_p
    lib.memfit_version.argtypes = []
    lib.memfit_string_free.restype = None
    lib.memfit_string_free.argtypes = [ctypes.c_void_p]
    lib.memfit_estimate_request_json.restype = ctypes.c_int
    lib.memfit_estimate_request_json.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.memfit_run_request_json.restype = ctypes.c_int
    lib.memfit_run_request_json.argtypes = [ctypes.c_char_p, ctypes.c_uint, ctypes.POINTER(ctypes.c_void_p)]
    lib.memfit_engines_json.restype = ctypes.c_int
    lib.memfit_engines_json.argtypes = [ctypes.POINTER(ctypes.c_void_p)]


def _load():
    problems = []
    for path in _library_candidates():
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            problems.append(str(e))
            continue
        try:
            _declare(lib)
        except AttributeError as e:
            problems.append(f"{path}: not memfit {__version__}'s C library ({e})")
            continue
        return lib
    raise ImportError("memfit: cannot load libmemfit_c.so (set MEMFIT_LIBRARY): " + "; ".join(problems))


_lib = None


def _library():
    global _lib
    if _lib is None:
        _lib = _load()
    return _lib


def version():
    """The C library's version, e.g. "0.1.0"."""
    return _library().memfit_version().decode()


def _taken(lib, response):
    """The JSON object the library answered through `response`, freed."""
    if not response.value:
        raise MemoryError("memfit: no response (out of memory)")
    try:
        return json.loads(ctypes.string_at(response.value).decode("utf-8", "replace"))
    finally:
        lib.memfit_string_free(response)


def _run(fields, options):
    """memfit_run_request_json: the report as a dict, or MemfitError."""
    lib = _library()
    body = json.dumps(fields).encode()
    response = ctypes.c_void_p()
    status = lib.memfit_run_request_json(body, options, ctypes.byref(response))
    answer = _taken(lib, response)
    if status == _MEMFIT_OK:
        return answer
    error = answer["error"]
    cls = _ERROR_CLASSES.get(error.get("kind"), MemfitError)
    raise cls(error.get("kind"), error.get("message", ""), error.get("field"))


def request(fields):
    """Runs one request given as a dict of JSON request fields ("model" is
    required; the module's docstring lists them) and returns the report as
    a dict; raises MemfitError."""
    return _run(fields, 0)


def engines():
    """The engines and every request field, as the library has them (what
    GET /v1/engines answers, schema/engines.schema.json): {"engines":
    [{"name", "summary", "release", "default_for", "fields": [...]}],
    "common_fields": [...]}, each field {"name", "flags", "help", "unit",
    "type", "choices", "default", "min", "max", "example", "required"}."""
    lib = _library()
    response = ctypes.c_void_p()
    if lib.memfit_engines_json(ctypes.byref(response)) != _MEMFIT_OK and not response.value:
        raise MemoryError("memfit: no response (out of memory)")
    return _taken(lib, response)


def estimate(model, **fields):
    """The estimate for `model` (a model folder, .safetensors or .gguf file,
    or a Hugging Face name "org/name[@revision][:QUANT]" in the local cache) with
    the given request fields (the module's docstring lists them, with the
    Python value each takes); None values are left out. Returns the report
    of `memfit inspect --json` as a dict; raises MemfitError."""
    body = {"model": os.fspath(model)}
    body.update({key: value for key, value in fields.items() if value is not None})
    return request(body)
