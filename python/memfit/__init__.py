"""memfit from Python: how much memory an LLM inference run will take, and
whether it fits, from the model's config and weight headers only.

    import memfit
    report = memfit.estimate("./models/qwen3-8b", max_tokens=32768, memory_limit="24GiB")
    print(report["total_bytes"], report["fits"])

estimate() passes its keyword arguments as the fields of one JSON request
to the C library (memfit_estimate_request_json in include/memfit/memfit.h),
so every field the library takes is available here without a new module:
max_tokens, batch, kv_cache_mode, cache_type_k, cache_type_v, quant,
backend, device, memory_limit, tensor_parallel, pipeline_parallel,
parallel_engine (whose sharding rules: "vllm" or "mlx-lm", engine names as
engine takes them), engine. The answer is the report `memfit inspect --json`
prints, as a dict. Failures raise a MemfitError subclass chosen by the
error's kind.

The C library is found, in order, at $MEMFIT_LIBRARY, beside an installed
module (<prefix>/lib/libmemfit_c.so for <prefix>/lib/python3/dist-packages/
memfit), then by the system's library search. Standard library only.
"""

import ctypes
import ctypes.util
import json
import os
import pathlib

__all__ = [
    "estimate",
    "request",
    "version",
    "MemfitError",
    "UsageError",
    "InputError",
    "SizeOverflowError",
    "HostError",
    "InternalError",
]

_MEMFIT_OK = 0


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
    installed_lib = pathlib.Path(__file__).resolve().parents[3]
    yield str(installed_lib / "libmemfit_c.so")
    found = ctypes.util.find_library("memfit_c")
    if found:
        yield found


def _load():
    problems = []
    for path in _library_candidates():
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            problems.append(str(e))
            continue
        lib.memfit_version.restype = ctypes.c_char_p
        lib.memfit_version.argtypes = []
        lib.memfit_string_free.restype = None
        lib.memfit_string_free.argtypes = [ctypes.c_void_p]
        lib.memfit_estimate_request_json.restype = ctypes.c_int
        lib.memfit_estimate_request_json.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
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


def request(fields):
    """Runs one request given as a dict of JSON request fields ("model" is
    required) and returns the report as a dict; raises MemfitError."""
    lib = _library()
    body = json.dumps(fields).encode()
    response = ctypes.c_void_p()
    status = lib.memfit_estimate_request_json(body, ctypes.byref(response))
    if not response.value:
        raise MemoryError("memfit: no response (out of memory)")
    try:
        answer = json.loads(ctypes.string_at(response.value).decode("utf-8", "replace"))
    finally:
        lib.memfit_string_free(response)
    if status == _MEMFIT_OK:
        return answer
    error = answer["error"]
    cls = _ERROR_CLASSES.get(error.get("kind"), MemfitError)
    raise cls(error.get("kind"), error.get("message", ""), error.get("field"))


def estimate(model, **fields):
    """The estimate for `model` (a model folder, .safetensors or .gguf file,
    or a Hugging Face name "org/name[@revision][:QUANT]" in the local cache) with
    the given request fields; None values are left out. Returns the report
    of `memfit inspect --json` as a dict; raises MemfitError."""
    body = {"model": os.fspath(model)}
    body.update({key: value for key, value in fields.items() if value is not None})
    return request(body)
