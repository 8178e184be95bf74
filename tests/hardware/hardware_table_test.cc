// The hardware table (memfit/hardware.h): the embedded copy against the
// committed files, every row's basis and source, the derivation rules
// against the printed figures they rest on, the loader's refusals, and
// finding a row by the names users write.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "memfit/hardware.h"
#include "support/paths.h"

namespace memfit {
namespace {

constexpr uint64_t kGiB = 1ull << 30;

std::string slurp(const std::string& relative) {
  std::ifstream in(std::string(MEMFIT_SOURCE_DIR) + "/" + relative, std::ios::binary);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

const HardwareTable& table() {
  Result<const HardwareTable*> t = hardware_table();
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message());
  static const HardwareTable kEmpty;
  return t.ok() ? **t : kEmpty;
}

const GpuSpec& gpu(std::string_view name) {
  Result<const GpuSpec*> g = find_gpu(table(), name);
  EXPECT_TRUE(g.ok()) << name << ": " << (g.ok() ? "" : g.error().message());
  static const GpuSpec kNone;
  return g.ok() ? **g : kNone;
}

std::string gpu_error(std::string_view name) {
  Result<const GpuSpec*> g = find_gpu(table(), name);
  EXPECT_FALSE(g.ok()) << name;
  if (g.ok()) return "found " + (*g)->id;
  EXPECT_EQ(g.error().kind(), ErrorKind::kUsage);
  return g.error().message();
}

const MacSpec& mac(std::string_view name) {
  Result<const MacSpec*> m = find_mac(table(), name);
  EXPECT_TRUE(m.ok()) << name << ": " << (m.ok() ? "" : m.error().message());
  static const MacSpec kNone;
  return m.ok() ? **m : kNone;
}

std::string mac_id(std::string_view name) {
  Result<const MacSpec*> m = find_mac(table(), name);
  return m.ok() ? (*m)->id : m.error().message();
}

const std::string kGpuHeader =
    "id\tvendor\tname\taliases\tmemory_mib\tmemory_basis\tmemory_source\tmemory_marketing\t"
    "bandwidth_gb_s\tfp16_dense_tflops\tint8_dense_tops\tfp8_dense_tflops\tarch\tspec_source\tnotes\n";
const std::string kAppleHeader =
    "id\tchip\ttier\tgpu_cores\tunified_memory_gb\tbandwidth_gb_s\tfp16_tflops\tmacos\twired_limit_mb\t"
    "wired_limit_basis\twired_limit_source\tspec_source\tnotes\tgpu_read_bandwidth_gb_s\t"
    "gpu_read_bandwidth_source\n";
const std::string kGpuRow =
    "x1\tnvidia\tX One\tx-one\t1024\tprinted\thttps://a\t1 GB\t100\t1.5\t3\t\t8.9\t\t\n";
const std::string kMacRow = "m9-8gb\tM9\tbase\t8\t8\t100\t2.6\tbefore 26\t\tderived: 2/3\t\t\t\t\t\n";

TEST(HardwareTable, TheEmbeddedTableIsTheCommittedFiles) {
  Result<HardwareTable> files =
      parse_hardware_tables(slurp("data/hardware/gpus.tsv"), slurp("data/hardware/apple.tsv"));
  ASSERT_TRUE(files.ok()) << files.error().message();
  EXPECT_EQ(hardware_to_json(*files), hardware_to_json(table()));
  // The floor: at least 40 GPUs and 20 Apple configurations.
  EXPECT_EQ(table().gpus.size(), 63u);  // 59 + RX 5700 XT, H20, GB10, Radeon PRO W7900
  EXPECT_EQ(table().macs.size(), 48u);
}

TEST(HardwareTable, EveryFigureSaysWhereItComesFrom) {
  for (const GpuSpec& g : table().gpus) {
    if (g.memory_basis == "printed") {
      EXPECT_FALSE(g.memory_source.empty()) << g.id;
    } else if (g.memory_mib != 0) {
      // A rule names the printed figures it rests on.
      EXPECT_TRUE(g.memory_basis.starts_with("derived: ")) << g.id;
      EXPECT_NE(g.memory_basis.find("printed"), std::string::npos) << g.id;
    } else {
      EXPECT_TRUE(g.memory_basis.starts_with("none: ")) << g.id;
    }
    EXPECT_FALSE(g.name.empty()) << g.id;
  }
  for (const MacSpec& m : table().macs) {
    EXPECT_FALSE(m.wired_limit_source.empty()) << m.id;
    EXPECT_TRUE(m.wired_limit_basis == "printed" || m.wired_limit_basis.starts_with("derived: "))
        << m.id;
  }
}

TEST(HardwareTable, SpeedFiguresHaveSourcesAndAppleFp16FollowsItsRule) {
  for (const GpuSpec& g : table().gpus) {
    if (g.bandwidth_gb_s > 0 || g.fp16_dense_tflops > 0) {
      EXPECT_FALSE(g.spec_source.empty()) << g.id;
    }
  }
  for (const MacSpec& m : table().macs) {
    if (m.bandwidth_gb_s > 0) {
      EXPECT_FALSE(m.spec_source.empty()) << m.id;
    }
    // M1 to M4 all have an FP16 figure, and the notes say where it is from.
    if (!m.chip.starts_with("M5")) {
      EXPECT_GT(m.fp16_tflops, 0) << m.id;
      EXPECT_NE(m.notes.find("TFLOPS"), std::string::npos) << m.id;
    }
  }
  // Stated by Apple: the 76-core M2 Ultra's 27.2 TFLOPS.
  EXPECT_DOUBLE_EQ(mac("m2-ultra-192gb").fp16_tflops, 27.2);
  // Derived: 40 cores x 128 ALUs x 2 FLOPs x 1.398 GHz = 14.31552, 14.32
  // as the row rounds it; the 30-core bin 30 x 128 x 2 x 1.398 = 10.73664.
  EXPECT_DOUBLE_EQ(mac("m3-max-64gb").fp16_tflops, 14.32);
  EXPECT_DOUBLE_EQ(mac("m3-max-36gb").fp16_tflops, 10.74);
}

TEST(HardwareTable, DerivationRulesGiveThePrintedFiguresTheyRestOn) {
  // Ada, N GiB x 2047/2048: 24,576 x 2047/2048 = 24,564 (RTX 4090 printed);
  // 16,384 x 2047/2048 = 16,376 (RTX 4080 SUPER printed).
  EXPECT_EQ(gpu("rtx4090").memory_mib, 24576u * 2047 / 2048);
  EXPECT_EQ(gpu("rtx4080super").memory_mib, 16384u * 2047 / 2048);
  EXPECT_EQ(gpu("rtx4080").memory_mib, 16376u);  // derived by it
  // Blackwell GDDR7, N GiB x 32607/32768 rounded down: 12,288 x 32607 /
  // 32768 = 12,227.6 -> 12,227, the RTX 5070's printed figure.
  EXPECT_EQ(gpu("rtx5070").memory_mib, 12288u * 32607 / 32768);
  EXPECT_EQ(gpu("rtx5080").memory_mib, 16303u);  // 16,384 x 32607 / 32768 = 16,303.5
  // AMD, N GiB - 16 MiB: 24,560 (RX 7900 XTX), 20,464 (RX 7900 XT), 196,592
  // (MI300X) printed; MI210 64 GB derived: 65,536 - 16 = 65,520.
  EXPECT_EQ(gpu("rx7900xtx").memory_mib, 24u * 1024 - 16);
  EXPECT_EQ(gpu("rx7900xt").memory_mib, 20u * 1024 - 16);
  EXPECT_EQ(gpu("mi300x").memory_mib, 192u * 1024 - 16);
  EXPECT_EQ(gpu("mi210").memory_mib, 65520u);
  // HBM with no printed total: marketing GB as 10^9 bytes, a lower bound
  // the printed ones exceed (H100 80 GB prints 81,559 MiB > 76,293).
  EXPECT_EQ(gpu("b300").memory_mib, 288'000'000'000ull >> 20);  // 274,658
  EXPECT_GT(gpu("h100-80gb").memory_mib, 80'000'000'000ull >> 20);
}

TEST(HardwareTable, PrintedWiredLimitsBeforeMacos26AreTheRule) {
  // Printed to 0.01 MB (10,000 bytes): each within that of 2/3 of RAM (32
  // GiB or less) or 3/4 (above). 8 GiB: 8,589,934,592 x 2/3 =
  // 5,726,623,061 B, printed 5726.63 MB.
  int printed = 0;
  for (const MacSpec& m : table().macs) {
    if (m.wired_limit_basis != "printed" || m.macos_26) continue;
    ++printed;
    const uint64_t rule = mac_default_wired_limit_bytes(m.ram_bytes(), false);
    const uint64_t gap =
        m.wired_limit_bytes > rule ? m.wired_limit_bytes - rule : rule - m.wired_limit_bytes;
    EXPECT_LE(gap, 10'000u) << m.id;
  }
  EXPECT_EQ(printed, 8);
  EXPECT_EQ(mac_default_wired_limit_bytes(8 * kGiB, false), 5'726'623'061u);
}

TEST(HardwareTable, MacRulesByHand) {
  // 24 GiB, before macOS 26: 2/3 x 25,769,803,776 = 17,179,869,184 (16 GiB).
  EXPECT_EQ(mac_default_wired_limit_bytes(24 * kGiB, false), 16 * kGiB);
  // 36 GiB: 3/4 x 38,654,705,664 = 28,991,029,248 (27 GiB).
  EXPECT_EQ(mac_default_wired_limit_bytes(36 * kGiB, false), 27 * kGiB);
  // 32 GiB is the last at 2/3: 34,359,738,368 x 2/3 = 22,906,492,245.
  EXPECT_EQ(mac_default_wired_limit_bytes(32 * kGiB, false), 22'906'492'245u);
  // macOS 26: 0.78 x 48 GiB = 0.78 x 51,539,607,552 = 40,200,893,890.56.
  EXPECT_EQ(mac_default_wired_limit_bytes(48 * kGiB, true), 40'200'893'890u);
  // The reserve, max(7 GiB, 15%): 24 GiB -> 7 GiB; 128 GiB -> 0.15 x
  // 137,438,953,472 = 20,615,843,020.8, rounded up.
  EXPECT_EQ(mac_reserve_bytes(24 * kGiB), 7 * kGiB);
  EXPECT_EQ(mac_reserve_bytes(128 * kGiB), 20'615'843'021u);
  // The rows: a derived one is the rule; a printed one as printed.
  Result<const MacSpec*> m4 = find_mac(table(), "m4-24gb");
  ASSERT_TRUE(m4.ok());
  EXPECT_EQ((*m4)->wired_limit_bytes, 16 * kGiB);
  Result<const MacSpec*> m1 = find_mac(table(), "m1-16gb");
  ASSERT_TRUE(m1.ok());
  EXPECT_EQ((*m1)->wired_limit_bytes, 11'453'250'000u);  // 11453.25 MB
}

TEST(HardwareTable, LoaderReadsColumnsByNameAndSkipsEmptyLines) {
  Result<HardwareTable> t =
      parse_hardware_tables(kGpuHeader + "\n" + kGpuRow, kAppleHeader + kMacRow + "\n");
  ASSERT_TRUE(t.ok()) << t.error().message();
  ASSERT_EQ(t->gpus.size(), 1u);
  EXPECT_EQ(t->gpus[0].memory_bytes(), 1ull << 30);
  EXPECT_EQ(t->gpus[0].aliases, std::vector<std::string>{"x-one"});
  EXPECT_DOUBLE_EQ(t->gpus[0].fp16_dense_tflops, 1.5);
  EXPECT_EQ(t->gpus[0].fp8_dense_tflops, 0);
  ASSERT_EQ(t->macs.size(), 1u);
  // 8 GiB x 2/3 = 5,726,623,061.
  EXPECT_EQ(t->macs[0].wired_limit_bytes, 5'726'623'061u);
  EXPECT_EQ(t->macs[0].title(), "M9 8GB");
}

TEST(HardwareTable, LoaderRefusesWhatItCannotRead) {
  auto error = [](const std::string& gpus, const std::string& apple) {
    Result<HardwareTable> t = parse_hardware_tables(gpus, apple);
    return t.ok() ? std::string("ok") : t.error().message();
  };
  const std::string apple = kAppleHeader + kMacRow;
  EXPECT_EQ(error(kGpuHeader + "x1\tnvidia\n", apple),
            "data/hardware/gpus.tsv: line 2: 2 fields, the header has 15");
  EXPECT_EQ(error("", apple), "data/hardware/gpus.tsv: no header line");
  std::string bad = kGpuRow;
  bad.replace(bad.find("1024"), 4, "1O24");
  EXPECT_EQ(error(kGpuHeader + bad, apple),
            "data/hardware/gpus.tsv: line 2: memory_mib: '1O24' is not a decimal number");
  bad = kGpuRow;
  bad.replace(bad.find("printed"), 7, "guessed");
  EXPECT_EQ(
      error(kGpuHeader + bad, apple),
      "data/hardware/gpus.tsv: line 2: memory_basis: 'guessed' is not printed or derived with "
      "a figure, or none without");
  bad = kGpuRow;
  bad.replace(bad.find("nvidia"), 6, "3dfx");
  EXPECT_EQ(error(kGpuHeader + bad, apple),
            "data/hardware/gpus.tsv: line 2: vendor: '3dfx' is not nvidia, amd or intel");
  EXPECT_EQ(error(kGpuHeader + kGpuRow + kGpuRow, apple), "hardware table: id x1 is used 2 times");
  std::string header = kGpuHeader;
  header.replace(header.find("arch"), 4, "cc");
  EXPECT_EQ(error(header + kGpuRow, apple), "data/hardware/gpus.tsv: no column arch");
  EXPECT_EQ(error(kGpuHeader, kAppleHeader + "m9\tM9\tbase\t8\t8\t\t\t25\t\tprinted\t\t\t\t\t\n"),
            "data/hardware/apple.tsv: line 2: macos: '25' is not 26 or before 26");
  // A measured GPU read bandwidth needs its source and is at most the
  // spec (100 GB/s in kMacRow).
  const std::string measured = "m9-8gb\tM9\tbase\t8\t8\t100\t2.6\tbefore 26\t\tderived: 2/3\t\t\t\t";
  EXPECT_EQ(error(kGpuHeader, kAppleHeader + measured + "80\t\n"),
            "data/hardware/apple.tsv: line 2: gpu_read_bandwidth_gb_s: '80' is not a figure at "
            "most bandwidth_gb_s with its gpu_read_bandwidth_source");
  EXPECT_EQ(error(kGpuHeader, kAppleHeader + measured + "120\thttps://example.org/m9\n"),
            "data/hardware/apple.tsv: line 2: gpu_read_bandwidth_gb_s: '120' is not a figure at "
            "most bandwidth_gb_s with its gpu_read_bandwidth_source");
  EXPECT_EQ(error(kGpuHeader, kAppleHeader + measured + "80\thttps://example.org/m9\n"), "ok");
}

// The M1 Max's GPU reads 317.6 GB/s of its 400 (ggml-org/llama.cpp#1642):
// both GPU bins decode at it; a chip with no measurement decodes at its
// spec (docs/hardware.md, "A Mac's GPU read bandwidth").
TEST(HardwareTable, MeasuredGpuReadBandwidthStandsInForTheSpecInDecode) {
  for (std::string_view id : {"m1-max-32gb", "m1-max-64gb", "m1-max-24c-32gb"}) {
    const MacSpec& m = mac(id);
    EXPECT_DOUBLE_EQ(m.bandwidth_gb_s, 400) << id;
    EXPECT_DOUBLE_EQ(m.gpu_read_bandwidth_gb_s, 317.6) << id;
    EXPECT_DOUBLE_EQ(m.decode_bandwidth_gb_s(), 317.6) << id;
    EXPECT_EQ(m.gpu_read_bandwidth_source, "https://github.com/ggml-org/llama.cpp/pull/1642") << id;
  }
  const MacSpec& m3 = mac("m3-max-64gb");
  EXPECT_DOUBLE_EQ(m3.gpu_read_bandwidth_gb_s, 0);
  EXPECT_DOUBLE_EQ(m3.decode_bandwidth_gb_s(), 400);
}

TEST(HardwareNames, IdsAliasesAndPrintedNamesIgnoringCaseSpacesAndDashes) {
  for (std::string_view name :
       {"rtx4090", "RTX 4090", "rtx-4090", "NVIDIA GeForce RTX 4090", "GeForce RTX 4090", "4090"}) {
    EXPECT_EQ(gpu(name).id, "rtx4090") << name;
  }
  for (std::string_view name : {"h100-80gb", "H100", "NVIDIA H100 80GB HBM3", "h100 80gb hbm3"}) {
    EXPECT_EQ(gpu(name).id, "h100-80gb-sxm") << name;
  }
  EXPECT_EQ(gpu("mi300x").id, "mi300x");
  EXPECT_EQ(gpu("AMD Instinct MI300X").id, "mi300x");
  EXPECT_EQ(gpu("Intel(R) Arc(TM) A770 Graphics").id, "arc-a770");
  EXPECT_EQ(hardware_key("Intel(R) Arc(TM) A770 Graphics"), "intelarca770graphics");
  EXPECT_EQ(gpu("h100-80gb").memory_bytes(), 85'520'809'984u);  // 81,559 x 2^20
  // The H20 as nvidia-smi and SGLang print it, apart from the H200.
  for (std::string_view name : {"NVIDIA H20", "h20", "H20-96GB"}) {
    EXPECT_EQ(gpu(name).id, "h20") << name;
  }
  EXPECT_EQ(gpu("NVIDIA H200").id, "h200");
  const GpuSpec& h20 = gpu("h20");
  EXPECT_EQ(h20.memory_bytes(), 102'625'181'696u);  // 97,871 x 2^20
  EXPECT_DOUBLE_EQ(h20.bandwidth_gb_s, 4000);
  EXPECT_DOUBLE_EQ(h20.fp16_dense_tflops, 148);
  EXPECT_DOUBLE_EQ(h20.fp8_dense_tflops, 296);  // Hopper: 2 x the FP16 dense rate
}

TEST(HardwareNames, UnknownAmbiguousAndMemorylessNamesSayWhy) {
  EXPECT_EQ(
      gpu_error("rtx 4090 ti"),
      "'rtx 4090 ti': no such GPU; nearest: rtx4090, rtx3090ti, rtx4060ti-8gb (memfit hardware "
      "lists them)");
  EXPECT_EQ(
      gpu_error("NVIDIA GeForce RTX 3080"),
      "'NVIDIA GeForce RTX 3080' is the printed name of rtx3080-10gb and rtx3080-12gb: give one "
      "of them");
  EXPECT_EQ(gpu_error("strix-halo"),
            "'strix-halo' (ryzen-ai-max-395) has no memory of its own: unified memory, the BIOS "
            "carve-out plus GTT; describe it with --memory-limit");
  EXPECT_EQ(gpu_error("voodoo5"), "'voodoo5': no such GPU (memfit hardware lists them)");
}

TEST(HardwareNames, MacsByIdOrChipAndMemory) {
  EXPECT_EQ(mac_id("M3 Pro 18GB"), "m3-pro-18gb");
  EXPECT_EQ(mac_id("Apple M3 Pro 18 GB"), "m3-pro-18gb");
  EXPECT_EQ(mac_id("m4-max-128gb"), "m4-max-128gb");
  EXPECT_EQ(mac_id("M3 Pro"),
            "'M3 Pro' is a chip: give its memory too: m3-pro-18gb or m3-pro-36gb");
  EXPECT_EQ(mac_id("M4 Max 96GB"),
            "'M4 Max 96GB': no such Mac; nearest: m2-max-96gb, m3-max-96gb, m4-max-36gb (memfit "
            "hardware lists them)");
}

}  // namespace
}  // namespace memfit
