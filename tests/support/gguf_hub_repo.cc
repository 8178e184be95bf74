#include "support/gguf_hub_repo.h"

#include "support/gguf_fixtures.h"
#include "support/small_ggufs.h"

namespace memfit {
namespace {

FakeHubFile hub_file(const GgufWriter& w) { return FakeHubFile{w.header(), w.file_bytes()}; }

}  // namespace

GgufHubRepo gguf_hub_repo(const std::string& commit) {
  GgufHubRepo out;
  out.repo.commit = commit;
  const GgufWriter q4 = qwen3_8b_gguf();
  out.repo.files["Qwen3-8B-Q4_K_M.gguf"] = hub_file(q4);
  out.q4_bytes = q4.file_bytes();

  GgufWriter q8 = qwen3_8b_gguf_keys();
  q8.add_tensor("token_embd.weight", GgmlType::kQ8_0, {4096, 151936});
  GgufWriter second;
  second.add_u16("split.no", 1).add_u16("split.count", 2).add_i32("split.tensors.count", 37);
  for (int layer = 0; layer < 36; ++layer) {
    const std::string name = "blk." + std::to_string(layer) + ".attn_q.weight";
    q8.add_tensor(name, GgmlType::kQ8_0, {4096, 4096});
    second.add_tensor(name, GgmlType::kQ2_K, {4096, 4096});
  }
  out.repo.files["Qwen3-8B-Q8_0.gguf"] = hub_file(q8);
  out.repo.files["mmproj-F16.gguf"] = hub_file(q8);
  out.q8_bytes = q8.file_bytes();

  GgufWriter first = qwen3_8b_gguf_keys();
  first.add_u16("split.no", 0).add_u16("split.count", 2).add_i32("split.tensors.count", 37);
  first.add_tensor("token_embd.weight", GgmlType::kQ2_K, {4096, 151936});
  out.repo.files["Q2_K/Qwen3-8B-Q2_K-00001-of-00002.gguf"] = hub_file(first);
  out.repo.files["Q2_K/Qwen3-8B-Q2_K-00002-of-00002.gguf"] = hub_file(second);
  out.split_bytes = first.file_bytes() + second.file_bytes();

  const std::string readme = "# Qwen3-8B-GGUF";
  out.repo.files["README.md"] = FakeHubFile{readme, readme.size()};
  return out;
}

}  // namespace memfit
