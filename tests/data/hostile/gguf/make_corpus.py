#!/usr/bin/env python3
"""Writes the GGUF corpus in this folder (one tiny file per case).

Each file is a whole .gguf file (layout in include/memfit/gguf.h).
tests/model/gguf_hostile_test.cc expects each valid_* file to be read and
every other file to fail with the error listed there; fuzz/gguf_fuzz.cc uses
them all as seeds. Run from anywhere: python3 make_corpus.py
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

U8, I8, U16, I16, U32, I32, F32, BOOL, STR, ARR, U64, I64, F64 = range(13)
F32_TYPE, F16_TYPE, Q8_0, Q4_K = 0, 1, 8, 12


def u32(n):
    return struct.pack("<I", n)


def u64(n):
    return struct.pack("<Q", n)


def string(text):
    data = text.encode() if isinstance(text, str) else text
    return u64(len(data)) + data


def preamble(tensors, entries, version=3):
    return b"GGUF" + u32(version) + u64(tensors) + u64(entries)


def entry(key, value_type, value):
    return string(key) + u32(value_type) + value


def array(element_type, count, elements=b""):
    return u32(element_type) + u64(count) + elements


def info(name, dims, ggml_type, offset):
    return (string(name) + u32(len(dims)) + b"".join(u64(d) for d in dims) + u32(ggml_type) +
            u64(offset))


def pad(data, alignment=32):
    return data + b"\0" * (-len(data) % alignment)


def gguf(entries=(), infos=(), data=b"", version=3, alignment=32):
    """A file: preamble, entries, infos, padding (when there are tensors), data."""
    head = preamble(len(infos), len(entries), version) + b"".join(entries) + b"".join(infos)
    return (pad(head, alignment) if infos else head) + data


ARCH = entry("general.architecture", STR, string("llama"))

# One of every value type, nested arrays, and two tensors: an F32 [8]
# (32 bytes at 0) and a Q8_0 [32, 2] (2 x 34 = 68 bytes at 32).
VALID_TYPES = gguf(
    entries=[
        ARCH,
        entry("u8", U8, b"\xc8"),
        entry("i8", I8, b"\x9c"),
        entry("u16", U16, struct.pack("<H", 60000)),
        entry("i16", I16, struct.pack("<h", -30000)),
        entry("u32", U32, u32(4000000000)),
        entry("i32", I32, struct.pack("<i", -2000000000)),
        entry("f32", F32, struct.pack("<f", 1.5)),
        entry("bool", BOOL, b"\x01"),
        entry("u64", U64, u64(2**64 - 1)),
        entry("i64", I64, struct.pack("<q", -2**63)),
        entry("f64", F64, struct.pack("<d", 0.1)),
        entry("heads", ARR, array(U32, 3, u32(32) + u32(32) + u32(8))),
        entry("tags", ARR, array(STR, 2, string("a") + string("bc"))),
        entry("nested", ARR, array(ARR, 2, array(U32, 1, u32(7)) + array(STR, 1, string("x")))),
    ],
    infos=[info("a", [8], F32_TYPE, 0), info("b", [32, 2], Q8_0, 32)],
    data=b"\0" * (32 + 68),
    version=2,
)

# A minimal SentencePiece tokenizer block, a 64-byte alignment and one
# Q4_K [256, 3] tensor (3 x 144 bytes).
VALID_TOKENIZER = gguf(
    entries=[
        ARCH,
        entry("tokenizer.ggml.model", STR, string("llama")),
        entry("tokenizer.ggml.tokens", ARR, array(STR, 3, string("<unk>") + string("<s>") +
                                                  string("</s>"))),
        entry("tokenizer.ggml.scores", ARR, array(F32, 3, b"\0" * 12)),
        entry("tokenizer.ggml.token_type", ARR, array(I32, 3, u32(2) + u32(3) + u32(3))),
        entry("general.alignment", U32, u32(64)),
    ],
    infos=[info("token_embd.weight", [256, 3], Q4_K, 0)],
    data=b"\0" * (144 * 3),
    alignment=64,
)


def u32_entries(arch, pairs):
    return [entry(f"{arch}.{key}", U32, u32(value)) for key, value in pairs]


# Seeds for model_spec_from_gguf (fuzz/gguf_fuzz.cc reads each header as a
# model): a dense Qwen3 with its generic keys, and a hybrid whose layers
# come from per-layer arrays and SSM keys (M = Mamba-2, * = attention,
# E = MoE).
VALID_GEOMETRY_QWEN3 = gguf(entries=[entry("general.architecture", STR, string("qwen3"))] +
                            u32_entries("qwen3", [
                                ("block_count", 4), ("context_length", 4096),
                                ("embedding_length", 256), ("feed_forward_length", 512),
                                ("attention.head_count", 4), ("attention.head_count_kv", 2),
                                ("attention.key_length", 64), ("attention.value_length", 64),
                                ("vocab_size", 1000)]))
NEMOTRON_LAYERS = "M*EM"
VALID_GEOMETRY_NEMOTRON_H = gguf(
    entries=[entry("general.architecture", STR, string("nemotron_h_moe"))] +
    u32_entries("nemotron_h_moe", [
        ("block_count", 4), ("embedding_length", 256), ("attention.head_count", 4),
        ("attention.key_length", 64), ("attention.value_length", 64), ("ssm.conv_kernel", 4),
        ("ssm.inner_size", 512), ("ssm.state_size", 16), ("ssm.time_step_rank", 8),
        ("ssm.group_count", 2), ("expert_count", 8), ("expert_used_count", 2),
        ("vocab_size", 1000)]) +
    [entry("nemotron_h_moe.attention.head_count_kv", ARR,
           array(U32, 4, b"".join(u32(2 if c == "*" else 0) for c in NEMOTRON_LAYERS))),
     entry("nemotron_h_moe.feed_forward_length", ARR,
           array(U32, 4, b"".join(u32(512 if c == "E" else 0) for c in NEMOTRON_LAYERS)))])


def nested(levels):
    """An array nested `levels` deep, the innermost holding one u8."""
    return b"".join(array(ARR, 1) for _ in range(levels - 1)) + array(U8, 1, b"\x05")


def one_key(value_type, value, tail=b""):
    return gguf(entries=[entry("k", value_type, value)]) + tail


def one_tensor(name, dims, ggml_type, offset=0, data=b"\0" * 64):
    return gguf(infos=[info(name, dims, ggml_type, offset)], data=data)


F32_10 = info("a", [10], F32_TYPE, 0)  # 40 bytes
TWO_TENSORS_HEAD = gguf(infos=[F32_10])  # infos end at 57, data at 64

CASES = {
    "valid_empty": preamble(0, 0),
    "valid_types_v2": VALID_TYPES,
    "valid_tokenizer": VALID_TOKENIZER,
    "valid_nested_8_levels": one_key(ARR, nested(8)),
    "valid_geometry_qwen3": VALID_GEOMETRY_QWEN3,
    "valid_geometry_nemotron_h": VALID_GEOMETRY_NEMOTRON_H,
    "empty_file": b"",
    "magic_ggml": b"GGML" + b"\0" * 20,
    "magic_control_bytes": b"\x1b[2J" + b"\0" * 20,
    "version_0": preamble(0, 0, version=0),
    "version_1": preamble(0, 0, version=1),
    "version_4": preamble(0, 0, version=4),
    "big_endian_v3": b"GGUF" + struct.pack(">I", 3) + struct.pack(">Q", 0) * 2,
    "preamble_truncated": b"GGUF" + u32(3) + u64(0)[:5],
    "tensor_count_uint64_max": preamble(2**64 - 1, 0),
    "metadata_count_past_file": preamble(0, 1000) + b"\0" * 100,
    "key_length_uint64_max": preamble(0, 1) + u64(2**64 - 1) + b"abcdefghij",
    "key_empty": gguf(entries=[entry("", STR, string("abc"))]),
    "key_duplicate": gguf(entries=[entry("k", U8, b"\1"), entry("k", U8, b"\2")]),
    "key_control_characters": preamble(0, 1) + string("evil\nkey\x1b[31m") + u32(99),
    "value_type_unknown": one_key(13, b"\0"),
    "value_string_past_file": one_key(STR, u64(2**63)),
    "value_u64_truncated": preamble(0, 1) + string("k") + u32(U64) + u32(0),
    "array_element_type_unknown": one_key(ARR, array(13, 1, b"\0")),
    "array_bytes_overflow": one_key(ARR, array(U32, 2**62), b"\0" * 10),
    "array_u32_past_file": one_key(ARR, array(U32, 1000), b"\0" * 10),
    "array_strings_cannot_fit": one_key(ARR, array(STR, 10**6), b"\0" * 10),
    "array_nested_9_levels": one_key(ARR, nested(9)),
    "alignment_not_u32": gguf(entries=[entry("general.alignment", I32, u32(32))]),
    "alignment_not_power_of_two": gguf(entries=[entry("general.alignment", U32, u32(48))]),
    "alignment_zero": gguf(entries=[entry("general.alignment", U32, u32(0))]),
    "tensor_5_dims": one_tensor("x", [1, 1, 1, 1, 1], F32_TYPE),
    "tensor_dim_negative": one_tensor("x", [4, 2**64 - 5], F32_TYPE),
    "tensor_elements_overflow": one_tensor("x", [2**32, 2**32], F32_TYPE),
    "tensor_bytes_overflow": one_tensor("x", [2**62], F32_TYPE),
    "tensor_type_unknown": one_tensor("x", [1], 99),
    "tensor_type_retired": one_tensor("x", [32], 31),
    "tensor_row_not_whole_blocks": one_tensor("x", [100, 3], Q4_K),
    "tensor_name_control_characters": one_tensor("bad\r\nname", [1], 99),
    "tensor_name_duplicate": gguf(infos=[info("a", [1], F32_TYPE, 0), info("a", [1], F32_TYPE, 32)],
                                  data=b"\0" * 64),
    "tensor_offset_overlaps": gguf(infos=[F32_10, info("b", [10], F32_TYPE, 16)],
                                   data=b"\0" * 128),
    "tensor_offset_gap": gguf(infos=[F32_10, info("b", [10], F32_TYPE, 96)], data=b"\0" * 160),
    "tensor_past_end_of_file": TWO_TENSORS_HEAD + b"\0" * 20,
    "data_section_past_end_of_file": TWO_TENSORS_HEAD[:60],
}

for name, data in CASES.items():
    with open(os.path.join(HERE, name + ".gguf"), "wb") as f:
        f.write(data)
