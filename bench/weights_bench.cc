// Benchmarks of sizing a 163-shard, 139,583-tensor, 1-trillion-parameter
// checkpoint from its safetensors headers (bench/synthetic_checkpoint.h).
//
//   build/release/bench/weights_bench [--benchmark_filter=...]
//
// The checkpoint is generated as sparse files into a temporary folder at
// start-up (~0.3 s, ~18 MB on disk) and removed at exit. Set
// MEMFIT_BENCH_CHECKPOINT=DIR to size an existing folder instead (the
// with-index benchmarks still use a generated one).
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <memory>
#include <string>
#include <vector>

#include "memfit/safetensors.h"
#include "memfit/weights.h"
#include "synthetic_checkpoint.h"

namespace {

// A generated checkpoint folder, removed when the program exits.
class GeneratedCheckpoint {
 public:
  explicit GeneratedCheckpoint(bool with_index) {
    const char* tmpdir = std::getenv("TMPDIR");
    std::string pattern = std::string(tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp") +
                          "/memfit-bench-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    root_ = pattern;
    dir_ = root_ + "/checkpoint";
    stats_ = memfit::bench::write_synthetic_checkpoint(dir_, with_index);
  }
  ~GeneratedCheckpoint() {
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
  }
  const std::string& dir() const { return dir_; }

 private:
  std::string root_;
  std::string dir_;
  memfit::bench::SyntheticCheckpointStats stats_;
};

const std::string& checkpoint_dir() {
  static const std::string* dir = [] {
    if (const char* env = std::getenv("MEMFIT_BENCH_CHECKPOINT"); env != nullptr && *env != '\0') {
      return new std::string(env);
    }
    static GeneratedCheckpoint checkpoint(/*with_index=*/false);
    return new std::string(checkpoint.dir());
  }();
  return *dir;
}

const std::string& indexed_checkpoint_dir() {
  static GeneratedCheckpoint checkpoint(/*with_index=*/true);
  return checkpoint.dir();
}

// Minor page faults of the process so far (all threads).
int64_t minor_faults() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// Reports the minor page faults per iteration since `start_faults`: fresh
// memory touched costs a fault per 4 KiB page, and on a VM that is most of
// what reading a large file into a new buffer costs.
void count_faults(benchmark::State& state, int64_t start_faults) {
  state.counters["minflt"] =
      benchmark::Counter(static_cast<double>(minor_faults() - start_faults),
                         benchmark::Counter::kAvgIterations);
}

void size_folder(benchmark::State& state, const std::string& dir, bool keep_tensors = false) {
  auto fs = memfit::make_real_file_system();
  memfit::WeightsInfo info;
  const int64_t start_faults = minor_faults();
  for (auto _ : state) {
    std::vector<std::string> warnings;
    memfit::Result<memfit::WeightsLookup> lookup =
        memfit::find_folder_weights(*fs, dir, warnings, {keep_tensors});
    if (!lookup.ok()) {
      state.SkipWithError(lookup.error().message().c_str());
      return;
    }
    info = lookup->info;
    benchmark::DoNotOptimize(info.bytes);
  }
  count_faults(state, start_faults);
  state.counters["shards"] = static_cast<double>(info.file_count);
  state.counters["tensors"] = static_cast<double>(info.tensor_count);
  state.counters["weights_GB"] = static_cast<double>(info.bytes) / 1e9;
}

// The whole folder rule without an index: list, stat, read and parse every
// header (on up to 8 threads).
void BM_FindFolderWeights(benchmark::State& state) { size_folder(state, checkpoint_dir()); }
BENCHMARK(BM_FindFolderWeights)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same pass keeping every tensor's name, dtype and shape, as
// open_model does for parallel plans, recommend-quant and multimodal splits.
void BM_FindFolderWeightsKeepingTensors(benchmark::State& state) {
  size_folder(state, checkpoint_dir(), /*keep_tensors=*/true);
}
BENCHMARK(BM_FindFolderWeightsKeepingTensors)->Unit(benchmark::kMillisecond)->UseRealTime();

// With a validated index: map and parse the 13.5 MB index, stat its shards.
void BM_FindFolderWeightsWithIndex(benchmark::State& state) {
  size_folder(state, indexed_checkpoint_dir());
}
BENCHMARK(BM_FindFolderWeightsWithIndex)->Unit(benchmark::kMillisecond)->UseRealTime();

// Parsing the index alone, text in memory: parse_safetensors_index copies
// it into a padded buffer (which malloc reuses from one iteration to the
// next) and walks its 139,583 weight_map entries.
void BM_ParseSafetensorsIndex(benchmark::State& state) {
  std::ifstream in(indexed_checkpoint_dir() + "/" + std::string(memfit::kSafetensorsIndexName),
                   std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  const std::string json = text.str();
  uint64_t tensor_count = 0;
  const int64_t start_faults = minor_faults();
  for (auto _ : state) {
    memfit::Result<memfit::SafetensorsIndex> index = memfit::parse_safetensors_index(json);
    if (!index.ok()) {
      state.SkipWithError(index.error().message().c_str());
      return;
    }
    tensor_count = index->tensor_count;
    benchmark::DoNotOptimize(tensor_count);
  }
  count_faults(state, start_faults);
  state.counters["tensors"] = static_cast<double>(tensor_count);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * json.size()));
}
BENCHMARK(BM_ParseSafetensorsIndex)->Unit(benchmark::kMillisecond);

// Every shard's header JSON, read once.
struct HeaderJsons {
  std::vector<std::string> jsons;
  uint64_t bytes = 0;
};

const HeaderJsons& header_jsons() {
  static const HeaderJsons* headers = [] {
    auto* out = new HeaderJsons;
    auto fs = memfit::make_real_file_system();
    for (int shard = 0; shard < memfit::bench::kSyntheticShards; ++shard) {
      const std::string path = checkpoint_dir() + "/" + memfit::bench::synthetic_shard_name(shard);
      auto stat = fs->stat(path);
      auto prefix = fs->read_range(path, 0, 8);
      if (!stat.ok() || !prefix.ok()) continue;
      auto length = memfit::parse_safetensors_length(*prefix, stat->size_bytes);
      if (!length.ok()) continue;
      auto json = fs->read_range(path, 8, *length);
      if (!json.ok()) continue;
      out->bytes += json->size();
      out->jsons.push_back(std::move(json).value());
    }
    return out;
  }();
  return *headers;
}

// Parsing alone, one thread, no file access: totals only.
void BM_ParseHeadersSummary(benchmark::State& state) {
  const HeaderJsons& headers = header_jsons();
  memfit::SafetensorsHeaderReader reader;
  for (auto _ : state) {
    for (const std::string& json : headers.jsons) {
      auto summary = reader.parse_summary(json, uint64_t{1} << 50);
      benchmark::DoNotOptimize(summary);
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * headers.bytes));
}
BENCHMARK(BM_ParseHeadersSummary)->Unit(benchmark::kMillisecond);

// Parsing alone, one thread, keeping the tensor list (names, shapes).
void BM_ParseHeadersWithTensorList(benchmark::State& state) {
  const HeaderJsons& headers = header_jsons();
  memfit::SafetensorsHeaderReader reader;
  for (auto _ : state) {
    for (const std::string& json : headers.jsons) {
      auto header = reader.parse(json, uint64_t{1} << 50);
      benchmark::DoNotOptimize(header);
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * headers.bytes));
}
BENCHMARK(BM_ParseHeadersWithTensorList)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
