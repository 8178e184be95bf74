#!/usr/bin/env python3
"""Writes the tiny GGUF models of the golden requests, and their copies in ../hf-cache (run: python3 make_models.py).
Shapes of tests/validation/make_validation_models.cc, shrunk: block-32 types, zero data, no tokenizer."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

U32, F32, BOOL, STR, ARR = 4, 6, 7, 8, 9
F32_T, F16_T, Q4_0, Q8_0 = 0, 1, 2, 8
# (block elements, block bytes) per ggml type.
BLOCK = {F32_T: (1, 4), F16_T: (1, 2), Q4_0: (32, 18), Q8_0: (32, 34)}
ALIGN = 32


def u32(n):
    return struct.pack("<I", n)


def u64(n):
    return struct.pack("<Q", n)


def string(text):
    data = text.encode()
    return u64(len(data)) + data


def pad(n):
    return n + (-n % ALIGN)


class Gguf:
    def __init__(self):
        self.entries = []
        self.tensors = []  # (name, dims, type)

    def kv(self, key, value_type, value):
        self.entries.append(string(key) + u32(value_type) + value)
        return self

    def str(self, key, text):
        return self.kv(key, STR, string(text))

    def u32(self, key, value):
        return self.kv(key, U32, u32(value))

    def f32(self, key, value):
        return self.kv(key, F32, struct.pack("<f", value))

    def bool(self, key, value):
        return self.kv(key, BOOL, b"\x01" if value else b"\x00")

    def u32_array(self, key, values):
        return self.kv(key, ARR, u32(U32) + u64(len(values)) + b"".join(u32(v) for v in values))

    def tensor(self, name, dims, ggml_type):
        self.tensors.append((name, dims, ggml_type))
        return self

    def bytes(self):
        infos, offset, data_bytes = [], 0, 0
        for name, dims, ggml_type in self.tensors:
            elements, block_bytes = BLOCK[ggml_type]
            assert dims[0] % elements == 0, (name, dims)
            count = 1
            for d in dims:
                count *= d
            size = count // elements * block_bytes
            infos.append(string(name) + u32(len(dims)) + b"".join(u64(d) for d in dims) +
                         u32(ggml_type) + u64(offset))
            offset = pad(offset + size)
            data_bytes = offset
        head = (b"GGUF" + u32(3) + u64(len(self.tensors)) + u64(len(self.entries)) +
                b"".join(self.entries) + b"".join(infos))
        if self.tensors:
            head += b"\0" * (pad(len(head)) - len(head))
        return head + b"\0" * data_bytes


def blk(i, name):
    return f"blk.{i}.{name}"


def base(arch, name, context, embd, blocks, vocab):
    return (Gguf().str("general.architecture", arch).str("general.name", name)
            .u32("general.file_type", 2).u32(f"{arch}.context_length", context)
            .u32(f"{arch}.embedding_length", embd).u32(f"{arch}.block_count", blocks)
            .f32(f"{arch}.attention.layer_norm_rms_epsilon", 1e-6).u32(f"{arch}.vocab_size", vocab))


def attention_gqa(w, i, embd, q, kv, t):
    w.tensor(blk(i, "attn_q.weight"), [embd, q], t).tensor(blk(i, "attn_k.weight"), [embd, kv], t)
    w.tensor(blk(i, "attn_v.weight"), [embd, kv], t).tensor(blk(i, "attn_output.weight"), [q, embd], t)


def dense_ffn(w, i, embd, ff, t):
    w.tensor(blk(i, "ffn_gate.weight"), [embd, ff], t).tensor(blk(i, "ffn_up.weight"), [embd, ff], t)
    w.tensor(blk(i, "ffn_down.weight"), [ff, embd], t)


def llama(name="golden llama dense GQA", embd=64, heads=4, kv_heads=2, head_dim=16, ff=128,
          blocks=4, vocab=256, context=4096, weights=Q4_0):
    w = base("llama", name, context, embd, blocks, vocab)
    w.u32("llama.feed_forward_length", ff).u32("llama.attention.head_count", heads)
    w.u32("llama.attention.head_count_kv", kv_heads).u32("llama.rope.dimension_count", head_dim)
    w.f32("llama.rope.freq_base", 10000.0)
    w.tensor("token_embd.weight", [embd, vocab], Q8_0 if weights == Q4_0 else weights)
    for i in range(blocks):
        w.tensor(blk(i, "attn_norm.weight"), [embd], F32_T)
        attention_gqa(w, i, embd, heads * head_dim, kv_heads * head_dim, weights)
        w.tensor(blk(i, "ffn_norm.weight"), [embd], F32_T)
        dense_ffn(w, i, embd, ff, weights)
    w.tensor("output_norm.weight", [embd], F32_T)
    w.tensor("output.weight", [embd, vocab], Q8_0 if weights == Q4_0 else weights)
    return w


def qwen3moe():
    E, H, HKV, D, FF_EXP, N_EXP, L, V = 64, 4, 2, 16, 32, 4, 4, 256
    w = base("qwen3moe", "golden qwen3moe", 8192, E, L, V)
    w.u32("qwen3moe.feed_forward_length", 256).u32("qwen3moe.attention.head_count", H)
    w.u32("qwen3moe.attention.head_count_kv", HKV).u32("qwen3moe.attention.key_length", D)
    w.u32("qwen3moe.attention.value_length", D).f32("qwen3moe.rope.freq_base", 1000000.0)
    w.u32("qwen3moe.expert_count", N_EXP).u32("qwen3moe.expert_used_count", 2)
    w.u32("qwen3moe.expert_feed_forward_length", FF_EXP)
    w.tensor("token_embd.weight", [E, V], Q8_0)
    for i in range(L):
        w.tensor(blk(i, "attn_norm.weight"), [E], F32_T)
        attention_gqa(w, i, E, H * D, HKV * D, Q4_0)
        w.tensor(blk(i, "attn_k_norm.weight"), [D], F32_T).tensor(blk(i, "attn_q_norm.weight"), [D], F32_T)
        w.tensor(blk(i, "ffn_norm.weight"), [E], F32_T)
        w.tensor(blk(i, "ffn_gate_inp.weight"), [E, N_EXP], F32_T)
        w.tensor(blk(i, "ffn_gate_exps.weight"), [E, FF_EXP, N_EXP], Q4_0)
        w.tensor(blk(i, "ffn_down_exps.weight"), [FF_EXP, E, N_EXP], Q4_0)
        w.tensor(blk(i, "ffn_up_exps.weight"), [E, FF_EXP, N_EXP], Q4_0)
    w.tensor("output_norm.weight", [E], F32_T).tensor("output.weight", [E, V], Q8_0)
    return w


def gemma3_swa():
    E, H, HKV, D, FF, L, V = 64, 2, 1, 32, 64, 6, 256
    w = base("gemma3", "golden gemma3 sliding window", 8192, E, L, V)
    w.u32("gemma3.feed_forward_length", FF).u32("gemma3.attention.head_count", H)
    w.u32("gemma3.attention.head_count_kv", HKV).u32("gemma3.attention.key_length", D)
    w.u32("gemma3.attention.value_length", D).u32("gemma3.attention.sliding_window", 128)
    w.f32("gemma3.rope.freq_base", 1000000.0)
    w.tensor("token_embd.weight", [E, V], Q8_0)  # tied: no output.weight
    for i in range(L):
        w.tensor(blk(i, "attn_norm.weight"), [E], F32_T)
        attention_gqa(w, i, E, H * D, HKV * D, Q4_0)
        w.tensor(blk(i, "post_attention_norm.weight"), [E], F32_T)
        w.tensor(blk(i, "attn_k_norm.weight"), [D], F32_T).tensor(blk(i, "attn_q_norm.weight"), [D], F32_T)
        w.tensor(blk(i, "ffn_norm.weight"), [E], F32_T)
        dense_ffn(w, i, E, FF, Q4_0)
        w.tensor(blk(i, "post_ffw_norm.weight"), [E], F32_T)
    w.tensor("output_norm.weight", [E], F32_T)
    return w


def deepseek2_mla():
    E, H, Q_LORA, KV_LORA, ROPE, NOPE, V_HEAD, FF, FF_EXP, N_EXP, L, V = (
        64, 2, 32, 32, 32, 32, 32, 128, 32, 4, 4, 256)
    w = base("deepseek2", "golden deepseek2 MLA", 8192, E, L, V)
    w.u32("deepseek2.feed_forward_length", FF).u32("deepseek2.attention.head_count", H)
    w.u32("deepseek2.attention.head_count_kv", 1)
    w.u32("deepseek2.attention.key_length", KV_LORA + ROPE).u32("deepseek2.attention.value_length", KV_LORA)
    w.u32("deepseek2.attention.key_length_mla", NOPE + ROPE)
    w.u32("deepseek2.attention.value_length_mla", V_HEAD)
    w.u32("deepseek2.attention.q_lora_rank", Q_LORA).u32("deepseek2.attention.kv_lora_rank", KV_LORA)
    w.u32("deepseek2.rope.dimension_count", ROPE).f32("deepseek2.rope.freq_base", 10000.0)
    w.u32("deepseek2.leading_dense_block_count", 1).u32("deepseek2.expert_count", N_EXP)
    w.u32("deepseek2.expert_used_count", 2).u32("deepseek2.expert_shared_count", 1)
    w.u32("deepseek2.expert_feed_forward_length", FF_EXP).f32("deepseek2.expert_weights_scale", 2.5)
    w.bool("deepseek2.expert_weights_norm", True).u32("deepseek2.expert_gating_func", 2)
    w.u32("deepseek2.nextn_predict_layers", 1)
    w.tensor("token_embd.weight", [E, V], Q8_0)
    for i in range(L):
        w.tensor(blk(i, "attn_norm.weight"), [E], F32_T)
        w.tensor(blk(i, "attn_q_a_norm.weight"), [Q_LORA], F32_T)
        w.tensor(blk(i, "attn_kv_a_norm.weight"), [KV_LORA], F32_T)
        w.tensor(blk(i, "attn_q_a.weight"), [E, Q_LORA], Q8_0)
        w.tensor(blk(i, "attn_q_b.weight"), [Q_LORA, H * (NOPE + ROPE)], Q8_0)
        w.tensor(blk(i, "attn_kv_a_mqa.weight"), [E, KV_LORA + ROPE], Q8_0)
        w.tensor(blk(i, "attn_k_b.weight"), [NOPE, KV_LORA, H], F16_T)
        w.tensor(blk(i, "attn_v_b.weight"), [KV_LORA, V_HEAD, H], F16_T)
        w.tensor(blk(i, "attn_output.weight"), [H * V_HEAD, E], Q8_0)
        w.tensor(blk(i, "ffn_norm.weight"), [E], F32_T)
        if i == 0:
            dense_ffn(w, i, E, FF, Q4_0)
        else:
            w.tensor(blk(i, "ffn_gate_inp.weight"), [E, N_EXP], F32_T)
            w.tensor(blk(i, "exp_probs_b.bias"), [N_EXP], F32_T)
            w.tensor(blk(i, "ffn_gate_exps.weight"), [E, FF_EXP, N_EXP], Q4_0)
            w.tensor(blk(i, "ffn_down_exps.weight"), [FF_EXP, E, N_EXP], Q4_0)
            w.tensor(blk(i, "ffn_up_exps.weight"), [E, FF_EXP, N_EXP], Q4_0)
            w.tensor(blk(i, "ffn_gate_shexp.weight"), [E, FF_EXP], Q4_0)
            w.tensor(blk(i, "ffn_down_shexp.weight"), [FF_EXP, E], Q4_0)
            w.tensor(blk(i, "ffn_up_shexp.weight"), [E, FF_EXP], Q4_0)
        if i == L - 1:  # the NextN (MTP) block
            w.tensor(blk(i, "nextn.eh_proj.weight"), [2 * E, E], Q8_0)
            w.tensor(blk(i, "nextn.enorm.weight"), [E], F32_T)
            w.tensor(blk(i, "nextn.hnorm.weight"), [E], F32_T)
            w.tensor(blk(i, "nextn.shared_head_norm.weight"), [E], F32_T)
    w.tensor("output_norm.weight", [E], F32_T).tensor("output.weight", [E, V], Q8_0)
    return w


def granite_hybrid():
    E, H, HKV, D, FF, L, V = 64, 4, 2, 16, 64, 4, 256
    D_INNER, D_STATE, GROUPS, SSM_HEADS, D_CONV = 2 * E, 16, 1, 8, 4
    CONV_DIM = D_INNER + 2 * GROUPS * D_STATE
    IN_PROJ = 2 * D_INNER + 2 * GROUPS * D_STATE + SSM_HEADS
    attention = {1, 3}
    w = base("granitehybrid", "golden granite hybrid", 8192, E, L, V)
    w.u32("granitehybrid.feed_forward_length", FF).u32("granitehybrid.attention.head_count", H)
    w.u32_array("granitehybrid.attention.head_count_kv", [HKV if i in attention else 0 for i in range(L)])
    w.f32("granitehybrid.rope.freq_base", 10000.0).u32("granitehybrid.ssm.conv_kernel", D_CONV)
    w.u32("granitehybrid.ssm.inner_size", D_INNER).u32("granitehybrid.ssm.state_size", D_STATE)
    w.u32("granitehybrid.ssm.time_step_rank", SSM_HEADS).u32("granitehybrid.ssm.group_count", GROUPS)
    w.tensor("token_embd.weight", [E, V], Q8_0)  # tied
    for i in range(L):
        w.tensor(blk(i, "attn_norm.weight"), [E], F32_T)
        if i in attention:
            attention_gqa(w, i, E, H * D, HKV * D, Q4_0)
        else:
            w.tensor(blk(i, "ssm_in.weight"), [E, IN_PROJ], Q4_0)
            w.tensor(blk(i, "ssm_conv1d.weight"), [D_CONV, CONV_DIM], F32_T)
            w.tensor(blk(i, "ssm_conv1d.bias"), [CONV_DIM], F32_T)
            w.tensor(blk(i, "ssm_dt.bias"), [SSM_HEADS], F32_T)
            w.tensor(blk(i, "ssm_a"), [1, SSM_HEADS], F32_T)
            w.tensor(blk(i, "ssm_d"), [1, SSM_HEADS], F32_T)
            w.tensor(blk(i, "ssm_norm.weight"), [D_INNER // GROUPS, GROUPS], F32_T)
            w.tensor(blk(i, "ssm_out.weight"), [D_INNER, E], Q4_0)
        w.tensor(blk(i, "ffn_norm.weight"), [E], F32_T)
        dense_ffn(w, i, E, FF, Q4_0)
    w.tensor("output_norm.weight", [E], F32_T)
    return w


def split(model, parts):
    """`model`'s tensors over `parts` files as gguf-split writes them: the metadata in the first."""
    files, n = [], len(model.tensors)
    for p in range(parts):
        g = Gguf()
        if p == 0:
            g.entries = list(model.entries)
        g.u32("split.no", p).u32("split.count", parts).kv("split.tensors.count", 5, struct.pack("<i", n))
        g.tensors = model.tensors[p * n // parts:(p + 1) * n // parts]
        files.append(g)
    return files


def projector():
    return (Gguf().str("general.architecture", "clip").u32("clip.vision.image_size", 64)
            .u32("clip.vision.patch_size", 8).u32("clip.vision.embedding_length", 32)
            .u32("clip.vision.feed_forward_length", 64).u32("clip.vision.attention.head_count", 4)
            .tensor("v.patch_embd.weight", [8, 8, 3, 32], F16_T).tensor("mm.0.weight", [32, 64], F32_T))


def lora(rank=8):
    w = Gguf().str("general.architecture", "llama").str("general.type", "adapter")
    w.str("adapter.type", "lora").f32("adapter.lora.alpha", 16.0)
    for i in range(4):
        w.tensor(blk(i, "attn_q.weight.lora_a"), [64, rank], F32_T)
        w.tensor(blk(i, "attn_q.weight.lora_b"), [rank, 64], F32_T)
    return w


def tiny(weights, name):
    return llama(name=name, embd=32, heads=2, kv_heads=1, head_dim=16, ff=64, blocks=2, vocab=128,
                 weights=weights)


def main():
    models = {
        "llama-dense.gguf": llama(),
        "qwen3moe.gguf": qwen3moe(),
        "gemma3-swa.gguf": gemma3_swa(),
        "deepseek2-mla.gguf": deepseek2_mla(),
        "granite-hybrid.gguf": granite_hybrid(),
        "mmproj.gguf": projector(),
        "lora.gguf": lora(),
        "quants/tiny-F16.gguf": tiny(F16_T, "golden tiny F16"),
        "quants/tiny-Q8_0.gguf": tiny(Q8_0, "golden tiny Q8_0"),
    }
    q4 = split(tiny(Q4_0, "golden tiny Q4_0"), 2)
    models["quants/tiny-Q4_0-00001-of-00002.gguf"] = q4[0]
    models["quants/tiny-Q4_0-00002-of-00002.gguf"] = q4[1]
    # A set whose second file is missing.
    models["broken-split-00001-of-00002.gguf"] = split(tiny(Q8_0, "golden broken split"), 2)[0]
    # The Hugging Face cache's golden/tiny-GGUF repo (refs/main names this snapshot).
    snapshot = "../hf-cache/models--golden--tiny-GGUF/snapshots/0123456789abcdef0123456789abcdef01234567/"
    for name in ["tiny-Q8_0.gguf", "tiny-Q4_0-00001-of-00002.gguf", "tiny-Q4_0-00002-of-00002.gguf"]:
        models[snapshot + name] = models["quants/" + name]
    for path, model in models.items():
        full = os.path.normpath(os.path.join(HERE, path))
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(model.bytes())


main()
