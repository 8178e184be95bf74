// Reading a 163-shard checkpoint (synthetic_checkpoint.h: Kimi-K2 sizes in
// the DeepSeek-V3 layout, 17.6 MB of header JSON) from a fake Hugging Face
// Hub on loopback (tests/support/fake_hub.h): the requests made, the bytes
// fetched and the wall time, with no added latency and with 50 ms added to
// every request (the Hub and its storage host each answer after 50 ms, as
// distant servers would). Both forms: with the index (13.5 MB, read whole)
// and without. docs/performance.md, "Reading from the Hub", has results.
//
//   build/release/bench/hub_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <unistd.h>

#include "memfit/model_by_name.h"
#include "support/fake_hub.h"
#include "synthetic_checkpoint.h"

namespace memfit {
namespace {

// The checkpoint as the fake Hub serves it: each shard's first 8 + N
// bytes (its header) and its full size; config.json and the index whole.
FakeHubRepo load_repo(const std::string& dir) {
  FakeHubRepo repo;
  repo.commit = "0123456789abcdef0123456789abcdef01234567";
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    FakeHubFile file;
    file.size_bytes = entry.file_size();
    std::ifstream in(entry.path(), std::ios::binary);
    uint64_t keep = file.size_bytes;
    if (name.ends_with(".safetensors")) {
      unsigned char prefix[8];
      in.read(reinterpret_cast<char*>(prefix), 8);
      uint64_t n = 0;
      for (int i = 7; i >= 0; --i) n = (n << 8) | prefix[i];
      keep = 8 + n;
      in.seekg(0);
    }
    file.bytes.resize(keep);
    in.read(file.bytes.data(), static_cast<std::streamsize>(keep));
    repo.files[name] = std::move(file);
  }
  return repo;
}

void BM_HubCheckpoint(benchmark::State& state) {
  const bool with_index = state.range(0) != 0;
  const std::string dir = (std::filesystem::temp_directory_path() /
                           ("memfit-hub-bench-" + std::to_string(::getpid())))
                              .string();
  bench::write_synthetic_checkpoint(dir, with_index);
  FakeHub hub;
  hub.add_repo("org/k2", load_repo(dir));
  std::filesystem::remove_all(dir);
  hub.set_latency_ms(static_cast<int>(state.range(1)));

  std::unique_ptr<FileSystem> fs = make_real_file_system();
  ModelNameOptions options;
  options.hf_cache.hub_cache_dir = "/nonexistent-memfit-bench-cache";
  options.hub.endpoint = hub.endpoint();
  uint64_t weights = 0;
  for (auto _ : state) {
    hub.clear_requests();
    Result<Model> m = open_model_by_name(*fs, "org/k2", options, OpenModelOptions{});
    if (!m) {
      state.SkipWithError(m.error().message().c_str());
      return;
    }
    weights = m->weights.bytes;
  }
  uint64_t requests = 0, hub_requests = 0, bytes = 0;
  for (const FakeHubRequest& r : hub.requests()) {
    ++requests;
    if (r.host == "hub") ++hub_requests;
    // Bodies that carry data: the listing and the storage host's ranges.
    if (r.host == "storage" || r.path.starts_with("/api/")) bytes += r.body_bytes;
  }
  state.counters["requests"] = static_cast<double>(requests);
  state.counters["to_hub"] = static_cast<double>(hub_requests);
  state.counters["MB_fetched"] = static_cast<double>(bytes) / 1e6;
  state.counters["weights_TB"] = static_cast<double>(weights) / 1e12;
}
BENCHMARK(BM_HubCheckpoint)
    ->ArgsProduct({{1, 0}, {0, 50}})
    ->ArgNames({"index", "latency_ms"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(3);

}  // namespace
}  // namespace memfit

BENCHMARK_MAIN();
