// The GPU families memfit's rules tell apart, read from a GPU's name
// (nvidia-smi's and NVML's spelling, "NVIDIA H100 80GB HBM3", probed or
// given by --gpu-name). One place, so that vLLM's batch defaults
// (vllm_resolve_defaults) and the MLA block size its CUDA platform forces
// (vllm_mla_block_size) cannot read the same name two ways.
#ifndef MEMFIT_ENGINES_SHARED_GPU_CLASS_H_
#define MEMFIT_ENGINES_SHARED_GPU_CLASS_H_

#include <string_view>

namespace memfit {

enum class GpuClass {
  kUnknown,              // no name: memfit was not told which GPU
  kOther,                // a name no rule singles out (RTX 4090, L40S, MI300X, ...)
  kAmpereA100,           // A100
  kHopperH100H200,       // H100, H200, GH200 (SM 9.0)
  kHopperOther,          // H800, H20 (SM 9.0)
  kBlackwellDatacenter,  // B100, B200, B300, GB200, GB300 (SM 10.x)
};

// The class of the GPU called `name`: its family's model number anywhere in
// the name, case-insensitively ("h100", "b200", ...). The families are
// tried in the order Blackwell, H100/H200, other Hopper, A100, so a GH200
// is an H200 and a GB200 a B200; "" is kUnknown, any other name kOther.
GpuClass classify_gpu(std::string_view name);

// kHopperH100H200 or kHopperOther: vLLM's FlashMLA runs on it.
bool is_hopper(GpuClass gpu_class);

// The name is an AMD GPU's, so vLLM runs on its ROCm platform: it says
// "amd", "radeon" or "instinct", or has a model number "mi" + two or three
// digits as a word of its own ("MI300X", "MI100") or an ISA "gfx" + digits
// ("gfx1151"), case-insensitively. ROCm SMI's names ("AMD Instinct
// MI300X", "AMD Radeon RX 7900 XTX") all say so; NVIDIA's never do.
bool names_amd_gpu(std::string_view name);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_SHARED_GPU_CLASS_H_
