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
library has them (GET /v1/engines). estimate_together() prices several
models on one machine, each with its own fields (docs/multi-model.md).

The C library is found, in order, at $MEMFIT_LIBRARY, beside the installed
package (<prefix>/lib/libmemfit_c.so for <prefix>/lib/python3/dist-packages/
memfit, <prefix>/lib/python3.11/site-packages/memfit, ...: where `cmake
--install` and pip put them under one prefix or venv), then by the system's
library search. Standard library only.

Request fields (generated from the request field table: scripts/gen-field-docs.py):

Read by every engine:
  model (str, required; -m, --model)
      model folder, .safetensors or .gguf file, or a Hugging Face name
      org/name[@revision][:QUANT]: the local HF cache (HF_HUB_CACHE), else the
      Hub
  engine (str: auto, mlxcel, llamacpp, mlx-lm, vllm or sglang, default auto;
    --engine)
      allocation rules: auto (the model's default) or an engine's name
      (docs/engines.md)
  kv_cache_mode (str: fp16 or int8, default fp16; --kv-cache-mode)
      KV cache element type: fp16 or int8
  cache_type_k (str: fp16, int8, f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1
    or iq4_nl, default f16; -ctk, --cache-type-k)
      K cache type: fp16 or int8; with --engine llamacpp f32, f16, bf16, q8_0,
      q4_0, q4_1, q5_0, q5_1 or iq4_nl, -ctk
  cache_type_v (str: fp16, int8, f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1
    or iq4_nl, default f16; -ctv, --cache-type-v)
      V cache type, as --cache-type-k, -ctv
  quant (str; --quant)
      weight mode to price: an MLX mode under mlxcel and mlx-lm (fp16, int8,
      int4, 3bit, 6bit-g32, mixed_3_6, ...), a GGUF file type under llamacpp
      (Q4_K_M, Q8_0, ...)
  backend (str: auto, rocm, metal, cuda or cpu, default auto; --backend)
      auto, rocm, metal, cuda or cpu
  memory_limit (int bytes or str such as '48GiB'; --memory-limit)
      memory budget, e.g. 48GiB (2^30 bytes) or 80GB (10^9 bytes); overrides
      MEMFIT_MEMORY_LIMIT
  device (str, default auto; --device)
      budget device: auto, cpu, cuda:N or rocm:N
  max_tokens (int >= 1, tokens, default 8192; --max-tokens)
      context length in tokens (default 8192; with llamacpp, --ctx-size)
  batch (int >= 1, default 1; --batch)
      sequences decoded together (default 1)
  tensor_parallel (int >= 1, default 1; --tensor-parallel,
    --tensor-parallel-size)
      tensor-parallel ranks (default 1); ranks > 1 add a per-device plan
  pipeline_parallel (int >= 1, default 1; --pipeline-parallel)
      pipeline-parallel stages (default 1)
  parallel_engine (str: vllm or mlx-lm, default vllm; --parallel-engine)
      whose sharding rules the plan follows: vllm (default) or mlx-lm
  confidence (str: 90, 95 or 99; --confidence)
      add the margin that covers 90, 95 or 99 % of the log corpus's runs to
      each modelled figure with a band, in the verdict and in what fit solves
  gpu (str or list of str; --gpu)
      a GPU of the machine priced, one per device, from memfit hardware: an id,
      an alias (rtx4090, h100-80gb, mi300x) or the name as nvidia-smi /
      rocm-smi prints it
  mac (str; --mac)
      the Mac priced, from memfit hardware: its id (m4-max-128gb) or chip and
      memory ("M3 Pro 18GB")
  host_bandwidth_gb_s (float, GB/s; --host-bandwidth)
      the host CPU's memory read bandwidth in GB/s, for the speed of the layers
      and experts left on the CPU (memfit hardware --measure prints this
      host's)
llamacpp's own, refused under another engine:
  ctx_size (int >= 0, tokens, default 0; -c, --ctx-size)
      context in tokens, 0 = the model's training context (default 0)
  parallel (int >= 1, default 1; -np, --parallel)
      sequences, -np (default 1)
  batch_size (int >= 1, tokens, default 2048; -b, --batch-size)
      logical batch (default 2048)
  ubatch_size (int >= 1, tokens, default 512; -ub, --ubatch-size)
      physical batch, -ub (default 512)
  flash_attn (str: on, off or auto, default auto; -fa, --flash-attn)
      on, off or auto (default), -fa
  swa_full (bool, default false; --swa-full)
      full-size sliding-window caches
  kv_unified (bool, default false; --kv-unified)
      one KV stream for all sequences
  embedding (bool, default false; --embedding, --embeddings)
      serve embeddings: no logits sampled, every batch token an output
  pooling (str: none, mean, cls, last or rank; --pooling)
      none, mean, cls, last or rank (default: the model's own); needs
      --embedding
  reranking (bool, default false; --reranking, --rerank)
      serve the reranking endpoint: --embedding with rank pooling
  llamacpp_version (str; --llamacpp-version)
      the llama.cpp build priced, b6500, or release tag, v0.4.0 (default: the
      pinned release)
  repack (str: auto, none, x86-avx2, x86-avx512 or arm, default auto; --repack)
      whose CPU repack kernels copy weights: auto (this host, default), none
      (--no-repack or GPU), x86-avx2, x86-avx512 or arm
  n_gpu_layers (str, int or bool, default all; -ngl, --n-gpu-layers,
    --gpu-layers)
      layers on the GPUs, -ngl: auto, all or N (blocks + 1 for the output
      layer; default all)
  n_cpu_moe (str, int or bool, default 0; -ncmoe, --n-cpu-moe)
      keep the first N blocks' experts on the host, -ncmoe
  override_tensor (str or list of str; -ot, --override-tensor)
      PATTERN=DEVICE (exps=CPU, CUDA0), -ot; repeatable
  split_mode (str, int or bool, default layer; -sm, --split-mode)
      none, layer (default) or row, -sm
  tensor_split (str, int or bool; -ts, --tensor-split)
      proportions per GPU, -ts 24,12 (default: free memory)
  main_gpu (str, int or bool, default 0; -mg, --main-gpu)
      -mg (default 0)
  no_mmap (str, int or bool, default false; --no-mmap)
      host weights resident, not page cache
  mlock (str, int or bool, default false; --mlock)
      host weights locked: resident
  no_kv_offload (str, int or bool, default false; -nkvo, --no-kv-offload)
      every KV cache on the host, -nkvo
  gpu_memory (str, int or bool; --gpu-memory)
      the GPUs' free memory, 0=24GiB,1=12GiB (default: this machine's)
  gpu_margin (str, int or bool, default 1GiB; --gpu-margin)
      left free on every GPU (default 1GiB)
  mmproj (str; --mmproj)
      a multimodal projector GGUF: its weights and image-encoding buffer
  no_mmproj_offload (bool, default false; --no-mmproj-offload)
      the projector on the host
  lora (str or list of str; --lora)
      a LoRA adapter GGUF (repeatable): its tensors next to the model's
  cache_ram (int, MiB; --cache-ram)
      llama-server's host prompt cache in MiB (-1 no limit, 0 off; the server's
      default 8192)
  ctx_checkpoints (int >= 0; --ctx-checkpoints)
      llama-server's context checkpoints per slot (0 off; the server's default
      32)
  model_draft (str; -md, --model-draft)
      a speculative-decoding draft GGUF: its weights, KV and compute, -md
  n_gpu_layers_draft (str, int or bool, default all; -ngld, --gpu-layers-draft,
    --n-gpu-layers-draft)
      the draft's layers on the GPUs, auto, all or N, -ngld (default all)
  cache_type_k_draft (str: f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1 or
    iq4_nl, default f16; -ctkd, --cache-type-k-draft)
      the draft's K cache type, -ctkd (f16)
  cache_type_v_draft (str: f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1 or
    iq4_nl, default f16; -ctvd, --cache-type-v-draft)
      the draft's V cache type, -ctvd (f16)
mlx-lm's own, refused under another engine:
  prompt_tokens (int >= 1, tokens, default 512; --prompt-tokens)
      prompt length (default 512)
  prefill_step_size (int >= 1, tokens, default 2048; --prefill-step-size)
      prompt tokens per prefill chunk (default 2048)
  kv_bits (int >= 1, bits; --kv-bits)
      quantized KV cache bits (default none)
  kv_group_size (int >= 1, default 64; --kv-group-size)
      quantized KV cache group size (default 64)
  max_kv_size (int >= 1, tokens; --max-kv-size)
      rotating KV cache of this many tokens (default unbounded)
  mlx_lm_version (str, default 0.31.3; --mlx-lm-version)
      the mlx-lm release that runs, X.Y[.Z], 0.17.0 or later (default 0.31.3,
      the newest release read)
  mlx_version (str, default 0.32.1; --mlx-version)
      the MLX release under mlx-lm, X.Y[.Z], 0.24.0 or later (default 0.32.1)
  mlx_chip (str: base, pro, max or ultra, default max; --mlx-chip)
      the Apple GPU's class: base, pro, max or ultra (default: the --mac's,
      else max)
  mlx_max_ops_per_buffer (int 1 to 100000; --mlx-max-ops-per-buffer)
      MLX_MAX_OPS_PER_BUFFER: ops a command buffer or CUDA graph holds
      (default: the chip's, or the CUDA GPU's)
  mlx_max_mb_per_buffer (int 1 to 1000000, 2^20 elements;
    --mlx-max-mb-per-buffer)
      MLX_MAX_MB_PER_BUFFER: a buffer's inputs, in 2^20 elements (default: the
      chip's, or the CUDA GPU's)
vllm's own, refused under another engine:
  gpu_memory_utilization (float, default 0.92; --gpu-memory-utilization)
      fraction of the GPU's total memory vLLM may use (default 0.92; 0.9 before
      vLLM 0.21)
  gpu_memory_total (int bytes or str such as '48GiB'; --gpu-memory-total)
      the GPU's total memory, e.g. 81559MiB (default: the GPU found; --gpu NAME
      gives it from the hardware table)
  gpu_name (str; --gpu-name)
      the GPU's name as nvidia-smi prints it, e.g. "NVIDIA H100 80GB HBM3", for
      another machine's GPU (default: the GPU found); picks the batch defaults
      and the MLA block size
  kv_cache_memory (int bytes or str such as '48GiB'; --kv-cache-memory,
    --kv-cache-memory-bytes)
      KV cache size per GPU (bytes, as vLLM's flag, or e.g. 16GiB); skips the
      profile
  block_size (int >= 1, tokens, default 16; --block-size)
      tokens per KV block (default 16)
  kv_cache_dtype (str: auto, fp8, fp8_e4m3 or fp8_e5m2, default auto;
    --kv-cache-dtype)
      auto (default) or fp8
  max_model_len (int >= 1, tokens; --max-model-len)
      context per request (default: the config's)
  max_num_seqs (int >= 1; --max-num-seqs)
      sequences per step (default: 1024 on a GPU of 70 GiB or more that is not
      an A100, else 256)
  max_num_batched_tokens (int >= 1, tokens; --max-num-batched-tokens)
      tokens per step, the profiled batch (default: 8192 on a GPU of 70 GiB or
      more that is not an A100, else 2048)
  num_speculative_tokens (int >= 0, tokens, default 0;
    --num-speculative-tokens)
      speculative tokens per step (MTP / draft; default 0)
  enforce_eager (bool, default false; --enforce-eager)
      no CUDA graphs
  runner (str: auto, generate or pooling, default auto; --runner)
      auto (default), generate or pooling: the embedding and scoring runner
  vllm_version (str; --vllm-version)
      the release whose KV accounting to price, X.Y[.Z]: 0.7 (the V1 engine),
      0.11 to 0.20, or 0.21 to 0.32 (default: the current line)
  enable_lora (bool, default false; --enable-lora)
      serve LoRA adapters: max_loras slots of max_lora_rank in every linear
      layer
  max_loras (int >= 1, default 1; --max-loras)
      LoRA adapters one batch may mix, the GPU slots (default 1; with
      enable_lora)
  max_lora_rank (int >= 1, default 16; --max-lora-rank)
      the slots' rank: 1, 8, 16 (default), 32, 64, 128, 256, 320 or 512
  lora_dtype (str: auto, float16 or bfloat16, default auto; --lora-dtype)
      auto (default: the model's dtype), float16 or bfloat16: 2 bytes an
      element each
  fully_sharded_loras (bool, default false; --fully-sharded-loras)
      split the LoRA slots fully across the tensor parallel ranks
  mamba_cache_dtype (str: auto, float32, float16 or bfloat16, default auto;
    --mamba-cache-dtype)
      the recurrent layers' state dtype: auto (default: the model's), float32,
      float16 or bfloat16
  mamba_ssm_cache_dtype (str: auto, float32, float16 or bfloat16, default auto;
    --mamba-ssm-cache-dtype)
      the SSM / temporal state's dtype: auto (default: mamba_cache_dtype's, or
      the Nemotron-H / Qwen3.5 config's), float32, float16 or bfloat16
sglang's own, refused under another engine:
  mem_fraction_static (float; --mem-fraction-static)
      fraction of the GPU's memory for weights and the KV pool (default:
      computed from the GPU's memory, chunked prefill, CUDA graphs and TP)
  context_length (int 1 to 4294967296, tokens; --context-length)
      context per request (default: the config's)
  max_running_requests (int 1 to 4294967296; --max-running-requests)
      requests run at once (default: the pool's tokens / context x 512, within
      2048 and 4096)
  max_total_tokens (int 1 to 4294967296, tokens; --max-total-tokens)
      SGLang's --max-total-tokens: caps the KV pool's tokens (default: what
      memory allows)
  page_size (int 1 to 4294967296, tokens, default 1; --page-size)
      tokens per KV page (default 1)
  sglang_kv_cache_dtype (str: auto, fp8_e4m3, fp8_e5m2 or bf16, default auto;
    --sglang-kv-cache-dtype)
      SGLang's --kv-cache-dtype: auto (default), fp8_e4m3, fp8_e5m2 or bf16
  chunked_prefill_size (int 1 to 4294967296, tokens; --chunked-prefill-size)
      tokens per prefill chunk (default by the GPU's memory: 2048, 4096, 8192
      or 16384)
  cuda_graph_max_bs (int 1 to 4294967296; --cuda-graph-max-bs)
      largest batch captured in a CUDA graph (default by the GPU's memory and
      TP)
  disable_cuda_graph (bool, default false; --disable-cuda-graph)
      no CUDA graphs
  disable_piecewise_cuda_graph (bool, default false;
    --disable-piecewise-cuda-graph)
      no piecewise (prefill) CUDA graphs: no reserve for them (0.5.10 and
      later)
  dp_size (int 1 to 4294967296, default 1; --dp-size, --dp)
      data-parallel replicas (default 1); GPUs = TP x DP
  enable_dp_attention (bool, default false; --enable-dp-attention)
      data-parallel attention inside the TP group (needs --dp > 1)
  enable_dp_lm_head (bool, default false; --enable-dp-lm-head)
      with --enable-dp-attention: the LM head split by the attention TP group,
      not TP
  ep_size (int 1 to 4294967296, default 1; --ep-size, --ep)
      expert-parallel ranks inside the TP group (default 1): each holds
      num_experts / EP experts, TP / EP of each one's width
  moe_a2a_backend (str, default none; --moe-a2a-backend)
      the MoE all-to-all backend (default none); deepep and mooncake set
      --ep-size to --tp
  disaggregation_mode (str: null, prefill or decode, default null;
    --disaggregation-mode)
      PD disaggregation: null (default), prefill or decode; no piecewise CUDA
      graphs, and from 0.5.16 the computed fraction follows the role
  enable_hierarchical_cache (bool, default false; --enable-hierarchical-cache)
      the hierarchical (host) KV cache: no piecewise CUDA graphs (0.5.10 and
      later)
  max_mamba_cache_size (int 1 to 4294967296; --max-mamba-cache-size)
      hybrid models: state slots of the Mamba / linear-attention pool (default:
      --mamba-full-memory-ratio's share)
  mamba_full_memory_ratio (float, default 0.9; --mamba-full-memory-ratio)
      hybrid models: the state pool's memory over the KV pool's (default 0.9)
  mamba_ssm_dtype (str: float32 or bfloat16, default float32;
    --mamba-ssm-dtype)
      hybrid models: the temporal (SSM) state's dtype, float32 (default) or
      bfloat16
  disable_radix_cache (bool, default false; --disable-radix-cache)
      hybrid models: no prefix cache, one state slot per request
  attention_backend (str; --attention-backend)
      SGLang's attention backend (default: aiter on an AMD GPU, else the GPU's
      own); aiter keeps 0.85 of --mem-fraction-static past an 8,192-token
      context
  sglang_version (str, default 0.5.20; --sglang-version)
      the SGLang release that runs, 0.5.3 or later 0.5 (default: the pinned
      0.5.20; 0.5.21 on priced by its rules, not read)
ollama's own, refused under another engine:
  num_ctx (int >= 1, tokens; --num-ctx)
      Modelfile/API num_ctx: context per sequence (default:
      OLLAMA_CONTEXT_LENGTH, else 4096, 32768 or 262144 by the GPUs' total
      memory)
  num_gpu (int >= 0, layers, default auto; --num-gpu)
      Modelfile/API num_gpu: layers on the GPUs, the output layer counted
      (default: as many as Ollama's scheduler fits)
  num_batch (int >= 1, tokens, default 512; --num-batch)
      Modelfile/API num_batch: tokens per prompt step (default 512)
  ollama_num_parallel (int 1 to 256, sequences, default 1;
    --ollama-num-parallel)
      OLLAMA_NUM_PARALLEL: sequences served at once; the cache holds num_ctx x
      this (default 1)
  ollama_context_length (int >= 1, tokens; --ollama-context-length)
      OLLAMA_CONTEXT_LENGTH: the server's default num_ctx (default: by the
      GPUs' total memory)
  ollama_flash_attention (bool; --ollama-flash-attention)
      OLLAMA_FLASH_ATTENTION: true or false (default: the model's own choice)
  ollama_kv_cache_type (str: f16, q8_0 or q4_0, default f16;
    --ollama-kv-cache-type)
      OLLAMA_KV_CACHE_TYPE: f16 (default), q8_0 or q4_0; quantized only with
      flash attention on
  ollama_gpu_overhead (int bytes or str such as '48GiB', default 0;
    --ollama-gpu-overhead)
      OLLAMA_GPU_OVERHEAD: memory kept free on every GPU (bytes, or e.g.
      512MiB; default 0)
  use_mmap (bool; --ollama-use-mmap)
      the request's use_mmap option: false reads the weights into memory
      (default: mapped with a GPU, read in on CPU alone)
  ollama_sched_spread (bool, default false; --ollama-sched-spread)
      OLLAMA_SCHED_SPREAD: spread the layers over every GPU (default false: as
      few GPUs as hold them)
  ollama_gpus_free (str; --ollama-gpus-free)
      each GPU's free memory as Ollama finds it, e.g. 0=22GiB,1=10GiB (default:
      the GPUs of --gpu, else this machine's)
  ollama_gpu_arch (str; --ollama-gpu-arch)
      the GPUs' architecture as Ollama's discovery prints it (compute=gfx1102,
      8.6)
  ollama_version (str, default v0.32.15; --ollama-version)
      the Ollama release whose rules decide, v0.1.0 to v0.24.0 or v0.30.0 to
      v0.32.15 (default: the newest read, v0.32.15)
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
    "check_log",
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
    lib.memfit_check_log_json.restype = ctypes.c_int
    lib.memfit_check_log_json.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]


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
    return _answer(lib, status, response)


def _answer(lib, status, response):
    """A JSON call's answer as a dict, or its error raised as MemfitError."""
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


def check_log(log, **options):
    """Reads a runtime's log (its text) and prices it, as `memfit check-log
    --json` does (docs/check-log.md); options: model, config (a dict or the
    config.json's text), gpu_memory_total, gpu_name, version, command,
    file_type (a GGUF file type, "Q4_K_M", beside a config); None values are
    left out. Returns the check as a dict; raises MemfitError."""
    body = {"log": log}
    body.update({key: value for key, value in options.items() if value is not None})
    lib = _library()
    response = ctypes.c_void_p()
    status = lib.memfit_check_log_json(json.dumps(body).encode(), ctypes.byref(response))
    return _answer(lib, status, response)


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


def estimate_together(models, **fields):
    """Several models on one machine (docs/multi-model.md): `models` is a
    list of dicts, each one model's request fields ("model" in each), and
    `fields` are every model's (a model's own replace them); None values are
    left out. Returns {"models": [each model's report], "devices": [what
    each device holds of each model, summed against its budget], "fits",
    "warnings"} as a dict; raises MemfitError."""
    def given(d):
        return {key: os.fspath(value) if key == "model" else value
                for key, value in d.items() if value is not None}
    body = given(fields)
    body["models"] = [given(m) for m in models]
    return request(body)
