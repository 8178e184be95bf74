#!/usr/bin/env python3
"""Writes the hostile safetensors corpus in this folder (one tiny file per case).

Each file is a whole .safetensors file: 8-byte little-endian length N, N bytes
of header, then data. tests/model/safetensors_hostile_test.cc expects each to
fail with the error listed there; fuzz/safetensors_fuzz.cc uses them as seeds.
Run from anywhere: python3 make_corpus.py
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def prefix(n):
    return struct.pack("<Q", n)


def file(header, data=b"", n=None):
    header = header.encode() if isinstance(header, str) else header
    return prefix(len(header) if n is None else n) + header + data


def tensor(name, dtype, shape, offsets):
    return '"%s":{"dtype":"%s","shape":%s,"data_offsets":%s}' % (name, dtype, shape, offsets)


def one(body, data=b"\0" * 16):
    return file("{" + body + "}", data)


CASES = {
    "empty_file": b"",
    "prefix_truncated_5_bytes": b"\x10\0\0\0\0",
    "length_zero": prefix(0) + b"{}",
    "length_past_end_of_file": file("{}", n=1 << 53),
    "length_uint64_max": file("{}", n=(1 << 64) - 1),
    "length_one_past_end_of_file": file("{}", n=3),
    "root_is_array": file("[]"),
    "root_is_string": file('"weights"'),
    "root_left_open": file('{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}', b"\0"),
    "invalid_utf8_name": file(b'{"\xff\xfe":{}}'),
    "unclosed_string": file('{"a'),
    "trailing_object": file("{}{}"),
    "nul_padding": file(b"{}\0\0\0\0\0\0"),
    "entry_not_object": file('{"x.weight":[1,2]}'),
    "missing_dtype": one('"x":{"shape":[1],"data_offsets":[0,1]}'),
    "dtype_not_string": one('"x":{"dtype":2,"shape":[1],"data_offsets":[0,1]}'),
    "shape_negative": one(tensor("x", "U8", "[1,-2]", "[0,1]")),
    "shape_float": one(tensor("x", "U8", "[1.5]", "[0,1]")),
    "shape_string": one(tensor("x", "U8", '"[1]"', "[0,1]")),
    "shape_above_uint64": one(tensor("x", "U8", "[18446744073709551616]", "[0,1]")),
    "offsets_three_values": one(tensor("x", "U8", "[1]", "[0,1,2]")),
    "offsets_reversed": one(tensor("x.weight", "U8", "[6]", "[10,4]")),
    "offsets_past_data_region": one(tensor("x", "U8", "[32]", "[0,32]")),
    "offsets_near_uint64_max": one(
        tensor("x", "U8", "[1]", "[18446744073709551614,18446744073709551615]")),
    "offsets_overlap": one(tensor("a", "U8", "[8]", "[0,8]") + "," +
                           tensor("b", "U8", "[8]", "[4,12]")),
    "dtype_width_mismatch": one(tensor("x", "BF16", "[2,3]", "[0,10]")),
    "shape_overflows_uint64": one(tensor("x", "U8", "[4294967296,4294967296]", "[0,1]")),
    "bytes_overflow_uint64": one(tensor("x", "F32", "[4611686018427387904]", "[0,1]")),
    "control_characters_in_name": file('{"evil\\nname\\u001b[31m":[]}'),
    "deeply_nested_shape": one(tensor("x", "U8", "[" * 5000 + "]" * 5000, "[0,1]")),
}

for name, data in CASES.items():
    with open(os.path.join(HERE, name + ".safetensors"), "wb") as f:
        f.write(data)
