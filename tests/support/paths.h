// Where the suite finds the source tree, its data and the program it runs.
// The absolute paths are fixed at configure time and compiled into
// paths.cc alone, so every other test object is the same in every checkout
// and the compiler cache serves it (tests/CMakeLists.txt). Each function
// returns a NUL-terminated string with static storage: safe to call during
// static initialisation.

#ifndef MEMFIT_TESTS_SUPPORT_PATHS_H_
#define MEMFIT_TESTS_SUPPORT_PATHS_H_

namespace memfit::testing {

const char* source_dir();     // the project's root
const char* test_data_dir();  // tests/data
const char* cli_path();       // the memfit program this build made
#ifdef MEMFIT_HAVE_FAKE_GPU_LIBRARIES
// The fake GPU management libraries tests/host builds (dlopen by path).
const char* fake_nvml_path();
const char* fake_nvml_minimal_path();
const char* fake_rocm_smi_path();
#endif

}  // namespace memfit::testing

#define MEMFIT_SOURCE_DIR (::memfit::testing::source_dir())
#define MEMFIT_TEST_DATA_DIR (::memfit::testing::test_data_dir())
#define MEMFIT_CLI_PATH (::memfit::testing::cli_path())
#ifdef MEMFIT_HAVE_FAKE_GPU_LIBRARIES
#define FAKE_NVML_PATH (::memfit::testing::fake_nvml_path())
#define FAKE_NVML_MINIMAL_PATH (::memfit::testing::fake_nvml_minimal_path())
#define FAKE_ROCM_SMI_PATH (::memfit::testing::fake_rocm_smi_path())
#endif

#endif  // MEMFIT_TESTS_SUPPORT_PATHS_H_
