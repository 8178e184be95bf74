#!/usr/bin/env python3
"""Estimate a model's memory from Python through memfit's C API.

Usage: ctypes_example.py /path/to/libmemfit_c.so MODEL_DIR
"""
import ctypes
import sys


class EstimateRequest(ctypes.Structure):
    _fields_ = [("max_tokens", ctypes.c_uint64), ("batch", ctypes.c_uint64),
                ("kv_int8", ctypes.c_int), ("memory_limit_bytes", ctypes.c_uint64)]


class EstimateResult(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint64) for name in (
        "weights_bytes", "kv_bytes", "kv_bytes_per_token", "allocator_overhead_bytes",
        "activation_bytes", "backend_inflight_bytes", "headroom_bytes", "total_bytes",
        "budget_bytes")] + [("fits", ctypes.c_int)]


def main() -> int:
    lib = ctypes.CDLL(sys.argv[1])
    lib.memfit_version.restype = ctypes.c_char_p
    lib.memfit_model_open.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
                                      ctypes.POINTER(ctypes.c_void_p)]
    lib.memfit_estimate.argtypes = [ctypes.c_void_p, ctypes.POINTER(EstimateRequest),
                                    ctypes.POINTER(EstimateResult), ctypes.POINTER(ctypes.c_void_p)]
    lib.memfit_model_free.argtypes = [ctypes.c_void_p]
    lib.memfit_string_free.argtypes = [ctypes.c_void_p]

    model = ctypes.c_void_p()
    error = ctypes.c_void_p()
    if lib.memfit_model_open(sys.argv[2].encode(), ctypes.byref(model), ctypes.byref(error)) != 0:
        print("error:", ctypes.string_at(error.value).decode(), file=sys.stderr)
        lib.memfit_string_free(error)
        return 1
    request = EstimateRequest(max_tokens=8192, batch=1, kv_int8=0, memory_limit_bytes=0)
    result = EstimateResult()
    status = lib.memfit_estimate(model, ctypes.byref(request), ctypes.byref(result),
                                 ctypes.byref(error))
    lib.memfit_model_free(model)
    if status != 0:
        print("error:", ctypes.string_at(error.value).decode(), file=sys.stderr)
        lib.memfit_string_free(error)
        return 1
    print(f"memfit {lib.memfit_version().decode()}: total_bytes={result.total_bytes} "
          f"fits={result.fits}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
